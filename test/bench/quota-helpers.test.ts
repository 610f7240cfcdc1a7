import { describe, expect, it } from 'vitest';

import { metricSum } from '../../bench/lib/bridge-metrics.ts';
import { analyseBurst, type BurstCall } from '../../bench/lib/burst-analysis.ts';
import { burstMessage, burstStateOf } from '../../bench/lib/burst-messages.ts';
import { createSlidingWindow } from '../../bench/lib/momentum-fake.ts';
import { builtInRules } from '../../src/mapping/default-rules.ts';
import { remapCoalesceKey } from '../../src/momentum/remap-coalesce-key.ts';
import type { RemapRequest } from '../../src/momentum/schemas.ts';
import { mapSObject } from '../../src/salesforce/map-sobject.ts';
import { parseOutboundMessage } from '../../src/salesforce/soap-parser.ts';
import { busiestWindow } from '../../src/store/rate-log.ts';

describe('bench createSlidingWindow', () => {
  it('when N requests lie in (now - W, now], then the next is refused with the wait until the oldest leaves, and refused ones count', () => {
    const window = createSlidingWindow({ requests: 2, windowMs: 1000 });

    expect(window.arrive(0)).toBe(0);
    expect(window.arrive(100)).toBe(0);
    // 0 leaves the window at 1000.
    expect(window.arrive(999)).toBe(1);
    // 0 has left; 100 and the refused 999 are still in, and 100 leaves at 1100.
    expect(window.arrive(1000)).toBe(100);
    expect(window.arrive(2000)).toBe(0);
  });
});

describe('bench busiestWindow', () => {
  it('when calls sit exactly W apart, then they never share a window; closer, they do', () => {
    expect(busiestWindow([0, 1000, 2000, 3000], 1000)).toBe(1);
    expect(busiestWindow([3000, 0, 999, 1000], 1000)).toBe(2);
    expect(busiestWindow([0, 500, 999, 1999], 1000)).toBe(3);
    expect(busiestWindow([], 1000)).toBe(0);
  });
});

describe('bench analyseBurst', () => {
  const shape = { meetings: 2, updates: 3, windowMs: 1000 };
  const call = (at: number, meeting: number, update: number, accepted = true): BurstCall => ({ at, accepted, state: { meeting, update } });

  it('when one meeting is sent early and again with its final state, then it counts as sent before its last update and both reach the final state', () => {
    const calls = [call(10, 0, 1), call(20, 1, 3), call(30, 1, 3, false), call(1010, 0, 3)];

    const result = analyseBurst(calls, shape, 0);

    expect(result).toMatchObject({
      calls: 4,
      refused: 1,
      peakInWindow: 3,
      meetingsAtFinalState: 2,
      sentBeforeLastUpdate: 1,
      sentOnce: 1,
      notNewer: 0,
      unknown: 0,
      lastFinalAt: 1010,
      perWindow: [3, 1],
    });
  });

  it('when a meeting is sent a state no newer than one already accepted, or never its final state, then both are counted against the run', () => {
    const calls = [call(10, 0, 2), call(20, 0, 2), call(30, 0, 1), { at: 40, accepted: true, state: undefined }];

    const result = analyseBurst(calls, shape, 0);

    expect(result).toMatchObject({ notNewer: 2, sentOnce: 0, meetingsAtFinalState: 0, unknown: 1, lastFinalAt: undefined });
  });
});

describe('bench burstMessage', () => {
  const rules = builtInRules({ triggerSummary: false, triggerAiSignals: false });
  const remapOf = (meeting: number, update: number, sequence: number): RemapRequest => {
    const [notification] = parseOutboundMessage(burstMessage(meeting, update, sequence)).notifications;
    if (notification === undefined) throw new Error('no notification');
    const outcome = mapSObject(rules, { notificationId: notification.id, sObjectType: notification.sObjectType, fields: notification.fields });
    if (outcome.kind !== 'remap') throw new Error(`not mapped: ${outcome.kind === 'skipped' ? outcome.reason : outcome.kind}`);
    return outcome.request;
  };

  it('when updates of one meeting are mapped with the built-in rules, then they share a coalescing key, differ in Salesforce ids, and the remap says which update it carries', () => {
    const first = remapOf(7, 1, 1);
    const last = remapOf(7, 3, 2);
    const other = remapOf(8, 3, 3);

    expect(remapCoalesceKey(first)).toBe(remapCoalesceKey(last));
    expect(remapCoalesceKey(other)).not.toBe(remapCoalesceKey(last));
    expect(first.salesforceRecords).not.toEqual(last.salesforceRecords);
    expect(burstStateOf(first)).toEqual({ meeting: 7, update: 1 });
    expect(burstStateOf(last)).toEqual({ meeting: 7, update: 3 });
    expect(burstStateOf({ meetingDetails: { title: 'Bench meeting 1' }, salesforceRecords: {} })).toBeUndefined();
  });

  it('when updates are built, then each carries a later SystemModstamp and its own notification id', () => {
    const [a, b] = [burstMessage(1, 1, 1), burstMessage(1, 2, 2)].map((xml) => parseOutboundMessage(xml).notifications[0]);

    expect(Date.parse(b?.fields.SystemModstamp ?? '')).toBeGreaterThan(Date.parse(a?.fields.SystemModstamp ?? ''));
    expect(a?.id).not.toBe(b?.id);
  });
});

describe('bench metricSum', () => {
  it('when samples carry labels, then those matching every given label are summed and comments are skipped', () => {
    const text = [
      '# HELP bridge_job_claims_total Jobs claimed',
      '# TYPE bridge_job_claims_total counter',
      'bridge_job_claims_total{kind="remap"} 80',
      'bridge_job_claims_total{kind="map-event"} 180',
      'bridge_jobs{kind="remap",state="pending"} 2',
      'bridge_jobs{kind="remap",state="running"} 1',
      'bridge_store_up 1',
    ].join('\n');

    expect(metricSum(text, 'bridge_job_claims_total', { kind: 'remap' })).toBe(80);
    expect(metricSum(text, 'bridge_job_claims_total')).toBe(260);
    expect(metricSum(text, 'bridge_jobs', { kind: 'remap', state: 'pending' })).toBe(2);
    expect(metricSum(text, 'bridge_store_up')).toBe(1);
    expect(metricSum(text, 'bridge_jobs', { kind: 'import' })).toBe(0);
  });
});
