import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { activitySchema } from '../../src/admin/response-schemas.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { type AdminApp, startAdminApp } from './support/admin-app.ts';
import { deadRemap, remapJob, settledJob, storeEvent } from './support/seed.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** A whole UTC minute in the past, far from now, so only this test's own rows fall near it. */
const T = Date.UTC(2026, 0, 5, 9, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const zeros = (start: number) => ({ start: iso(start), inbound: 0, delivered: 0, dead: 0, skipped: 0, superseded: 0, rematched: 0 });

interface Bucket {
  start: string;
  inbound: number;
  delivered: number;
  dead: number;
  skipped: number;
  superseded: number;
}

const total = (buckets: Bucket[], field: Exclude<keyof Bucket, 'start'>) => buckets.reduce((sum, bucket) => sum + bucket[field], 0);

describe('GET /admin/activity', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  const activity = (query = '') => harness!.get(`/admin/activity${query}`);

  it('when messages were posted and deliveries ended, then by default the last 24 hours come by the hour, each count in the hour it happened', async () => {
    harness = await startAdminApp({ env: { SALESFORCE_ORG_IDS: '00D8d0000001XyZ' } });
    const post = (xml: string) =>
      request(harness!.app).post('/salesforce/outbound-message').set('Content-Type', 'text/xml; charset=UTF-8').set('SOAPAction', '""').send(xml);
    await post(outboundMessage({ notifications: [eventNotification(1), eventNotification(2), eventNotification(3)] })).expect(200);
    await post(outboundMessage({ notifications: [eventNotification(4)] })).expect(200);
    const succeeded = await settledJob(harness.store, remapJob('evt-ok'), { state: 'succeeded', result: { requestId: 'r1' } });
    const dead = await deadRemap(harness.store, 'evt-dead');
    const skipped = await settledJob(harness.store, remapJob('evt-same'), { state: 'skipped', reason: 'unchanged' });
    const [older] = await harness.store.enqueue([{ ...remapJob('evt-twice'), runAt: Date.now() + HOUR }]);
    await harness.store.enqueue([{ ...remapJob('evt-twice'), runAt: Date.now() + HOUR }]);
    const superseded = (await harness.store.getJob(older!.id))!;
    const before = Date.now();

    const response = await activity();
    const after = Date.now();

    expect(response.status).toBe(200);
    expect(activitySchema.parse(response.body)).toEqual(response.body);
    const buckets: Bucket[] = response.body.buckets;
    const starts = buckets.map((bucket) => Date.parse(bucket.start));
    expect(buckets).toHaveLength(24);
    expect(starts[0]! % HOUR).toBe(0);
    expect(starts.every((start, index) => start === starts[0]! + index * HOUR)).toBe(true);
    // The last bucket is the hour that holds now.
    expect(starts[23]).toBeGreaterThan(before - HOUR);
    expect(starts[23]).toBeLessThanOrEqual(after);
    const bucketOf = (ms: number) => buckets[Math.floor((ms - starts[0]!) / HOUR)];
    expect(superseded.state).toBe('superseded');
    for (const [job, field] of [
      [succeeded, 'delivered'],
      [dead, 'dead'],
      [skipped, 'skipped'],
      [superseded, 'superseded'],
    ] as const) {
      expect(bucketOf(job.updatedAt)?.[field], field).toBe(1);
      expect(total(buckets, field), field).toBe(1);
    }
    const events = await harness.store.listEvents({ limit: 10 });
    expect(events).toHaveLength(4);
    for (const event of events) expect(bucketOf(event.receivedAt)?.inbound).toBeGreaterThan(0);
    expect(total(buckets, 'inbound')).toBe(4);
  });

  it('when since, until and bucket=minute are given, then buckets start at since, a minute apart, and an event at an edge counts in the bucket it opens', async () => {
    harness = await startAdminApp();
    for (const [n, receivedAt] of [T - 1, T, T + MINUTE - 1, T + MINUTE, T + 150_000, T + 3 * MINUTE].entries()) {
      await storeEvent(harness.store, { key: `evt-${n}`, receivedAt });
    }

    const aligned = await activity(`?since=${iso(T)}&until=${iso(T + 3 * MINUTE)}&bucket=minute`).expect(200);
    const shifted = await activity(`?since=${iso(T + 30_000)}&until=${iso(T + 100_000)}&bucket=minute`).expect(200);
    const offset = await activity(`?since=${encodeURIComponent('2026-01-05T10:00:00+01:00')}&until=${iso(T + MINUTE)}&bucket=minute`).expect(200);

    expect(aligned.body.buckets).toEqual([
      { ...zeros(T), inbound: 2 },
      { ...zeros(T + MINUTE), inbound: 1 },
      { ...zeros(T + 2 * MINUTE), inbound: 1 },
    ]);
    // The last bucket ends at until, shorter than a minute.
    expect(shifted.body.buckets).toEqual([
      { ...zeros(T + 30_000), inbound: 2 },
      { ...zeros(T + 90_000), inbound: 0 },
    ]);
    expect(offset.body.buckets).toEqual([{ ...zeros(T), inbound: 2 }]);
  });

  it('when a delivery ended exactly at since or at until, then it counts from since and not at until', async () => {
    harness = await startAdminApp();
    const succeeded = await settledJob(harness.store, remapJob('evt-edge'), { state: 'succeeded' });
    const at = succeeded.updatedAt;

    const from = await activity(`?since=${iso(at)}&until=${iso(at + MINUTE)}&bucket=minute`).expect(200);
    const upTo = await activity(`?since=${iso(at - MINUTE)}&until=${iso(at)}&bucket=minute`).expect(200);

    expect(from.body.buckets).toEqual([{ ...zeros(at), delivered: 1 }]);
    expect(upTo.body.buckets).toEqual([zeros(at - MINUTE)]);
  });

  it('when only until is given, then since is 24 hours before it: 1 440 minute buckets, the most there may be, all zeros', async () => {
    harness = await startAdminApp();

    const response = await activity(`?until=${iso(T)}&bucket=minute`).expect(200);

    expect(response.body.buckets).toHaveLength(1440);
    expect(response.body.buckets[0]).toEqual(zeros(T - 24 * HOUR));
    expect(response.body.buckets[1439]).toEqual(zeros(T - MINUTE));
  });

  it.each([
    ['1 441 minutes', `?since=${iso(T)}&until=${iso(T + 1440 * MINUTE + 1)}&bucket=minute`, '1441 minute buckets'],
    ['61 days by the hour', `?since=${iso(T)}&until=${iso(T + 61 * 24 * HOUR)}`, '1464 hour buckets'],
    ['a since 3 days ago by the minute', `?since=${iso(Date.now() - 3 * 24 * HOUR)}&bucket=minute`, 'minute buckets'],
  ])('when the range holds more than 1 440 buckets (%s), then 400 names the limit and nothing is counted', async (_name, query, holds) => {
    harness = await startAdminApp();

    const response = await activity(query);

    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_query', details: [{ path: 'since', message: expect.stringContaining('at most 1440') }] });
    expect(response.body.error.message).toContain(holds);
  });

  it.each([
    ['bucket=day', 'bucket'],
    ['bucket=Minute', 'bucket'],
    ['since=yesterday', 'since'],
    ['until=2026-01-05T09:00:00', 'until'],
    [`since=${iso(T)}&until=${iso(T)}`, 'since'],
    [`since=${iso(T + MINUTE)}&until=${iso(T)}`, 'since'],
    // A since after the default until (the end of the current hour).
    [`since=${iso(Date.now() + 2 * HOUR)}`, 'since'],
    ['window=1h', ''],
    ['bucket=hour&bucket=minute', 'bucket'],
    ['since=2026-01-05T09%3A00%3A00Z%00', 'since'],
  ])('when the query is %s, then 400 names %s', async (query, field) => {
    harness = await startAdminApp();

    const response = await activity(`?${query}`);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_query');
    expect(response.body.error.details.map((issue: { path: string }) => issue.path)).toContain(field);
  });
});
