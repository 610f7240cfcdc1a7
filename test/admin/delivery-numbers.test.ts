import request from 'supertest';
import { afterEach, expect, it } from 'vitest';

import type { AttemptRecord } from '../../src/store/types.ts';
import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';
import { remapJob, settledJob } from './support/seed.ts';

const KEY = 'admin-key-0123456789abcdef';
let harness: EngineApp | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const attempt = (status: number | undefined, errorClass: string): AttemptRecord => ({
  startedAt: Date.now(),
  durationMs: 20,
  ...(status === undefined ? {} : { status }),
  errorClass,
  responseExcerpt: `${status ?? errorClass} from Momentum`,
});

describeEachEngine('Delivery numbers', (engine) => {
  const start = async () => (harness = await startEngineApp(engine, { env: { ADMIN_API_KEYS: KEY } }));
  const get = (path: string) => request(harness!.app).get(path).set('Authorization', `Bearer ${KEY}`);

  it('when deliveries are made between internal jobs, then they are numbered 1, 2, 3… without gaps, stored, and internal jobs have none', async () => {
    const { store, url } = await start();
    const internal = { kind: 'crm-sweep', payload: {} };

    const made = await store.enqueue([internal, remapJob('m-1'), { kind: 'map-event', payload: { eventId: 1 } }, internal, remapJob('m-2')]);
    const [imported] = await store.enqueue([{ kind: 'import', payload: { request: { meeting: { id: 'x-1' } } }, coalesceKey: 'import:x-1' }]);
    await store.enqueue([internal]);
    const [replayed] = await store.enqueueReplays([{ ...remapJob('m-1'), replayOf: made[1]!.id }], 'activeReplay');
    const replay = 'created' in replayed! ? replayed.created : undefined;

    expect(made.map((job) => job.deliveryNo)).toEqual([null, 1, null, null, 2]);
    expect([imported!.deliveryNo, replay!.deliveryNo]).toEqual([3, 4]);
    // Ids keep their gaps; numbers do not.
    expect(made[4]!.id - made[1]!.id).toBe(3);
    const stored = await queryRows(url, 'SELECT id, delivery_no FROM jobs WHERE delivery_no IS NOT NULL ORDER BY delivery_no');
    expect(stored.map((row) => [row.id, row.delivery_no])).toEqual([
      [made[1]!.id, 1],
      [made[4]!.id, 2],
      [imported!.id, 3],
      [replay!.id, 4],
    ]);
    const listed = await get('/admin/deliveries');
    expect(listed.body.items.map((item: { id: number; number: number }) => [item.id, item.number])).toEqual([
      [replay!.id, 4],
      [imported!.id, 3],
      [made[4]!.id, 2],
      [made[1]!.id, 1],
    ]);
    const detail = await get(`/admin/deliveries/${imported!.id}`);
    expect(detail.body.delivery).toMatchObject({ id: imported!.id, number: 3 });
  });

  it('when many deliveries are enqueued at once from two callers, then every number is distinct and they are 1…n', async () => {
    const { store, url } = await start();

    await Promise.all(
      [0, 1].map((caller) => Promise.all([0, 1, 2, 3, 4].map((n) => store.enqueue([remapJob(`c${caller}-${n}`), { kind: 'crm-sweep', payload: {} }])))),
    );

    const numbers = (await queryRows(url, 'SELECT delivery_no FROM jobs WHERE kind = $1 ORDER BY delivery_no', ['remap'])).map((row) => row.delivery_no);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describeEachEngine('GET /admin/deliveries/:id action', (engine) => {
  const start = async () => (harness = await startEngineApp(engine, { env: { ADMIN_API_KEYS: KEY } }));
  const get = (path: string) => request(harness!.app).get(path).set('Authorization', `Bearer ${KEY}`);

  it.each([
    [404, 'rejected', 'not_in_momentum', 'import'],
    [401, 'rejected', 'api_key', 'none'],
    [403, 'rejected', 'api_key', 'none'],
    [422, 'rejected', 'request_body', 'none'],
    [400, 'rejected', 'request_body', 'none'],
    ['none', 'invalid_request', 'request_body', 'none'],
    [429, 'http_4xx', 'retries_exhausted', 'replay'],
    [503, 'http_5xx', 'retries_exhausted', 'replay'],
    ['none', 'timeout', 'retries_exhausted', 'replay'],
    [409, 'rejected', 'other', 'none'],
  ] as const)('when a remap died with status %s (%s) last, then its action is %s with button %s', async (status, errorClass, actionClass, button) => {
    const { store, url } = await start();
    const code = status === 'none' ? undefined : status;
    const dead = await settledJob(
      store,
      remapJob('m-1'),
      { state: 'dead', reason: 'gave up' },
      { failures: [attempt(503, 'http_5xx')], last: attempt(code, errorClass) },
    );

    const answer = await get(`/admin/deliveries/${dead.id}`);

    expect(answer.status).toBe(200);
    expect(answer.body.action).toEqual({ class: actionClass, status: code ?? null, advice: expect.any(String), button });
    const [stored] = await queryRows(url, 'SELECT state FROM jobs WHERE id = $1', [dead.id]);
    expect(stored!.state).toBe('dead');
  });

  it('when a delivery succeeded, then it has no action', async () => {
    const { store } = await start();
    const done = await settledJob(store, remapJob('m-1'), { state: 'succeeded' }, { last: attempt(200, 'ok') });

    expect((await get(`/admin/deliveries/${done.id}`)).body.action).toBeNull();
  });
});
