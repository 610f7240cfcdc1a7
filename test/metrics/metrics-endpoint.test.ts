import { afterEach, expect, it } from 'vitest';

import { jobStates } from '../bridge/support/stored-jobs.ts';
import { replies } from '../fakes/fake-momentum.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { describeEachEngine, expectSettled, storedJobStates, waitSettled } from '../support/stored-state.ts';
import { type EngineBridgeHarness, startBridgeHarness } from './support/metrics-bridge.ts';
import { families, sampleValue } from './support/prom-text.ts';

const OPPORTUNITY = '0068d0000101XyZAAU';
/** An Event notification that maps to a remap (it names an opportunity) with its own meeting title. */
const meeting = (n: number, subject: string) => eventNotification(n, { WhatId: OPPORTUNITY, Subject: subject });
const message = (...specs: ReturnType<typeof eventNotification>[]) => outboundMessage({ notifications: specs });
const foreignOrg = () => outboundMessage({ orgId: '00D8d0000999XyZEAU', notifications: [meeting(90, 'Not ours')] });

let harness: EngineBridgeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describeEachEngine('GET /metrics', (engine) => {
  it('when the bridge has seen no traffic, then it answers Prometheus text with every bridge family and the default process metrics', async () => {
    harness = await startBridgeHarness({}, engine);

    const response = await fetch(`${harness.bridge.url}/metrics`);
    const text = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const declared = families(text);
    expect(Object.fromEntries([...declared].filter(([name]) => name.startsWith('bridge_')))).toEqual({
      bridge_inbound_messages_total: 'counter',
      bridge_inbound_notifications_total: 'counter',
      bridge_inbound_events_received_total: 'counter',
      bridge_calendar_upkeep_total: 'counter',
      bridge_calendar_syncs_total: 'counter',
      bridge_calendar_lifecycle_events_total: 'counter',
      bridge_jobs_enqueued_total: 'counter',
      bridge_job_runs_total: 'counter',
      bridge_attempts_total: 'counter',
      bridge_attempt_duration_seconds: 'histogram',
      bridge_rate_limit_wait_seconds: 'histogram',
      bridge_job_claims_total: 'counter',
      bridge_mapping_outcomes_total: 'counter',
      bridge_readback_total: 'counter',
      bridge_reconcile_meetings_total: 'counter',
      bridge_store_up: 'gauge',
      bridge_jobs: 'gauge',
      bridge_oldest_pending_job_age_seconds: 'gauge',
      bridge_jobs_dead_last_24h: 'gauge',
      bridge_calendar_watches: 'gauge',
    });
    expect(declared.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(declared.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(sampleValue(text, 'bridge_store_up')).toBe(1);
    expect(sampleValue(text, 'bridge_inbound_messages_total', { source: 'salesforce' })).toBeUndefined();
    expect(await harness.counts()).toEqual({ messages: 0, events: 0, jobs: 0, calendars: 0 });
  });

  it('when messages are acked, duplicated and refused and the remap is delivered, then the inbound, job, attempt, mapping and queue series count exactly that', async () => {
    harness = await startBridgeHarness({}, engine);
    const first = message(meeting(1, 'Pricing review'));

    expect((await harness.postSalesforce(first)).status).toBe(200);
    expect((await harness.postSalesforce(first)).status).toBe(200); // Salesforce's redelivery of the same notification
    expect((await harness.postSalesforce(foreignOrg())).status).toBe(403);
    const text = await harness.scrapeUntil(
      (t) => sampleValue(t, 'bridge_job_runs_total', { kind: 'remap', outcome: 'succeeded' }) === 1,
      'the remap to succeed',
    );

    const value = (name: string, labels: Record<string, string> = {}) => sampleValue(text, name, labels);
    expect(value('bridge_inbound_messages_total', { source: 'salesforce', outcome: 'acked' })).toBe(2);
    expect(value('bridge_inbound_messages_total', { source: 'salesforce', outcome: 'refused', reason: 'org_not_allowed' })).toBe(1);
    expect(value('bridge_inbound_notifications_total', { source: 'salesforce', outcome: 'acked' })).toBe(1);
    expect(value('bridge_inbound_notifications_total', { source: 'salesforce', outcome: 'duplicate' })).toBe(1);
    expect(value('bridge_jobs_enqueued_total', { kind: 'map-event' })).toBe(1);
    expect(value('bridge_jobs_enqueued_total', { kind: 'remap' })).toBe(1);
    expect(value('bridge_job_runs_total', { kind: 'map-event', outcome: 'succeeded' })).toBe(1);
    expect(value('bridge_attempts_total', { kind: 'remap', status_class: '2xx' })).toBe(1);
    expect(value('bridge_attempts_total', { kind: 'map-event', status_class: 'ok' })).toBe(1);
    expect(value('bridge_attempt_duration_seconds_count', { kind: 'remap' })).toBe(1);
    expect(value('bridge_attempt_duration_seconds_bucket', { kind: 'remap', le: '+Inf' })).toBe(1);
    expect(value('bridge_mapping_outcomes_total', { source: 'salesforce', result: 'remap', rule: 'sobject:Event' })).toBe(1);
    expect(value('bridge_jobs', { kind: 'remap', state: 'succeeded' })).toBe(1);
    expect(value('bridge_jobs', { kind: 'map-event', state: 'succeeded' })).toBe(1);
    expect(value('bridge_jobs', { kind: 'remap', state: 'pending' })).toBe(0);
    expect(value('bridge_oldest_pending_job_age_seconds', { kind: 'remap' })).toBeUndefined();
    // What did not happen: one delivery for the meeting, nothing for the duplicate or the foreign org.
    expect(harness.momentum.requests.map((request) => request.path)).toEqual(['/v1/meeting/remap']);
    // The redelivery's raw message is kept, its notification is not stored twice; the foreign org stored nothing.
    expect(await harness.counts()).toEqual({ messages: 2, events: 1, jobs: 2, calendars: 0 });
    await waitSettled(harness.databaseUrl);
    await expectSettled(harness.databaseUrl);
  });

  it('when messages are refused by the client allowlist and the rate limit, then each refusal is counted under its reason', async () => {
    harness = await startBridgeHarness({ SALESFORCE_ALLOWED_CIDRS: '127.0.0.0/8', TRUST_PROXY: 'loopback', INBOUND_RATE_LIMIT: '1/1m' }, engine);

    const statuses = [
      (await harness.postSalesforce(message(meeting(1, 'A')), { 'x-forwarded-for': '198.51.100.7' })).status,
      (await harness.postSalesforce(message(meeting(2, 'B')))).status,
      (await harness.postSalesforce(message(meeting(3, 'C')))).status,
    ];
    const text = await harness.scrape();

    expect(statuses).toEqual([403, 200, 429]);
    expect(sampleValue(text, 'bridge_inbound_messages_total', { source: 'salesforce', outcome: 'refused', reason: 'client_not_allowed' })).toBe(1);
    expect(sampleValue(text, 'bridge_inbound_messages_total', { source: 'salesforce', outcome: 'refused', reason: 'rate_limited' })).toBe(1);
    expect(sampleValue(text, 'bridge_inbound_messages_total', { source: 'salesforce', outcome: 'acked' })).toBe(1);
    expect(await harness.counts()).toMatchObject({ messages: 1, events: 1 });
    // The one message let through is mapped and delivered like any other.
    await waitSettled(harness.databaseUrl);
    await expectSettled(harness.databaseUrl);
    expect(await jobStates(harness.databaseUrl)).toEqual(['map-event:succeeded', 'remap:succeeded']);
  });

  it('when Momentum refuses one remap, fails another once and a notification maps to nothing, then dead, retry, skipped and the status classes are counted', async () => {
    harness = await startBridgeHarness({}, engine);
    let failedOnce = false;
    harness.momentum.script((request) => {
      const title = (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title;
      if (title === 'Refused') return replies.badRequest();
      if (title === 'Flaky' && !failedOnce) {
        failedOnce = true;
        return replies.serverError(503);
      }
      return replies.accept();
    });
    const unmappable = eventNotification(3, { Subject: 'No CRM record' }); // names no opportunity, account or lead

    expect((await harness.postSalesforce(message(meeting(1, 'Refused'), meeting(2, 'Flaky'), unmappable))).status).toBe(200);
    const text = await harness.scrapeUntil(
      (t) =>
        sampleValue(t, 'bridge_job_runs_total', { kind: 'remap', outcome: 'dead' }) === 1 &&
        sampleValue(t, 'bridge_job_runs_total', { kind: 'remap', outcome: 'succeeded' }) === 1 &&
        sampleValue(t, 'bridge_job_runs_total', { kind: 'map-event', outcome: 'skipped' }) === 1,
      'one dead and one delivered remap, and the skipped mapping',
    );

    const value = (name: string, labels: Record<string, string>) => sampleValue(text, name, labels);
    expect(value('bridge_job_runs_total', { kind: 'remap', outcome: 'retry' })).toBe(1);
    expect(value('bridge_job_runs_total', { kind: 'map-event', outcome: 'skipped' })).toBe(1);
    expect(value('bridge_attempts_total', { kind: 'remap', status_class: '4xx' })).toBe(1);
    expect(value('bridge_attempts_total', { kind: 'remap', status_class: '5xx' })).toBe(1);
    expect(value('bridge_attempts_total', { kind: 'remap', status_class: '2xx' })).toBe(1);
    expect(value('bridge_attempt_duration_seconds_count', { kind: 'remap' })).toBe(3);
    expect(value('bridge_mapping_outcomes_total', { source: 'salesforce', result: 'remap', rule: 'sobject:Event' })).toBe(2);
    expect(value('bridge_mapping_outcomes_total', { source: 'salesforce', result: 'skipped', rule: 'none' })).toBe(1);
    expect(value('bridge_jobs', { kind: 'remap', state: 'dead' })).toBe(1);
    expect(value('bridge_jobs_dead_last_24h', { kind: 'remap' })).toBe(1);
    expect(value('bridge_jobs', { kind: 'map-event', state: 'skipped' })).toBe(1);
    // The refused remap was not retried: three calls in all (400, 503, 200).
    expect(harness.momentum.requests).toHaveLength(3);
    // Stored: the refused remap dead with Momentum's reason, the flaky one retried once; nothing else.
    await waitSettled(harness.databaseUrl);
    const jobs = await expectSettled(harness.databaseUrl, { deadKinds: ['remap'], retriedKinds: ['remap'] });
    // The two remaps are made in either order (two notifications mapped at once).
    const remaps = jobs.filter((job) => job.kind === 'remap').sort((a, b) => a.state.localeCompare(b.state));
    expect(remaps.map((job) => [job.state, job.attempts])).toEqual([
      ['dead', 1],
      ['succeeded', 2],
    ]);
    expect(remaps[0]?.reason).toContain('400');
  });

  it('when pacing holds a remap back for the budget, then it waits pending and unclaimed, and remaps were claimed exactly as often as sent', async () => {
    harness = await startBridgeHarness({ MOMENTUM_RATE_LIMIT: '1/1h' }, engine);

    expect((await harness.postSalesforce(message(meeting(1, 'First'), meeting(2, 'Second')))).status).toBe(200);
    const text = await harness.scrapeUntil(
      (t) =>
        sampleValue(t, 'bridge_job_runs_total', { kind: 'remap', outcome: 'succeeded' }) === 1 &&
        sampleValue(t, 'bridge_jobs', { kind: 'remap', state: 'pending' }) === 1,
      'one remap sent and the other waiting',
    );
    // Give a claim-and-put-back loop time to show itself, had there been one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = await harness.scrape();

    expect(sampleValue(later, 'bridge_job_claims_total', { kind: 'remap' })).toBe(1);
    expect(sampleValue(later, 'bridge_rate_limit_wait_seconds_count', { kind: 'remap' })).toBe(1);
    expect(sampleValue(later, 'bridge_job_runs_total', { kind: 'remap', outcome: 'deferred' }) ?? 0).toBe(0);
    expect(sampleValue(text, 'bridge_oldest_pending_job_age_seconds', { kind: 'remap' })).toBeGreaterThanOrEqual(0);
    expect(sampleValue(later, 'bridge_attempts_total', { kind: 'remap', status_class: '2xx' })).toBe(1);
    expect(harness.momentum.requests).toHaveLength(1);
    // Stored: the second remap pending (the budget the test set holds it) and never attempted; nothing dead or retried.
    const jobs = await storedJobStates(harness.databaseUrl);
    expect(jobs.map((job) => `${job.kind}:${job.state}:${job.attempts}`).sort()).toEqual([
      'map-event:succeeded:1',
      'map-event:succeeded:1',
      'remap:pending:0',
      'remap:succeeded:1',
    ]);
  });
});
