import { describe, expect, it } from 'vitest';

import type { Store } from '../../src/store/types.ts';
import { claimAll, job, message, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

const attempt = { startedAt: T0 + 200, durationMs: 42, status: 503, errorClass: 'http_5xx', upstreamRequestId: 'req-1' };

async function runningJob(store: Store, coalesceKey?: string) {
  const [created] = await store.enqueue([job({ coalesceKey })]);
  await store.claim({ owner: 'w1', limit: 1, leaseMs: 60_000, now: T0 + 100 });
  return created!;
}

export function finishConformance(harness: StoreHarness): void {
  describe('finish, attempts and results', () => {
    const fixture = useFixture(harness);

    it('when another owner finishes the job, then false is returned and nothing changes', async () => {
      const { store } = await fixture.fresh();
      const created = await runningJob(store);
      const before = await store.getJob(created.id);

      const finished = await store.finish({ jobId: created.id, leaseOwner: 'intruder', outcome: { state: 'succeeded' }, attempt, enqueue: [job()] });

      expect(finished).toBe(false);
      expect(await store.getJob(created.id)).toEqual(before);
      expect(await store.getAttempts(created.id)).toEqual([]);
      expect(await claimAll(store, 'w2')).toEqual([]);
    });

    it('when a job is retried twice and then succeeds, then attempts count each try and are listed in order', async () => {
      const { store } = await fixture.fresh();
      const created = await runningJob(store);

      await store.finish({ jobId: created.id, leaseOwner: 'w1', outcome: { state: 'retry', runAt: T0 + 500, error: '503 from Momentum' }, attempt });
      const afterRetry = await store.getJob(created.id);
      await store.claim({ owner: 'w2', limit: 1, leaseMs: 60_000, now: T0 + 500 });
      await store.finish({
        jobId: created.id,
        leaseOwner: 'w2',
        outcome: { state: 'retry', runAt: T0 + 600, error: 'timeout' },
        attempt: { startedAt: T0 + 510, durationMs: 30_000, errorClass: 'timeout' },
      });
      await store.claim({ owner: 'w3', limit: 1, leaseMs: 60_000, now: T0 + 600 });
      await store.finish({
        jobId: created.id,
        leaseOwner: 'w3',
        outcome: { state: 'succeeded', result: { requestId: 'r-9' } },
        attempt: { startedAt: T0 + 610, durationMs: 12, status: 200, upstreamRequestId: 'r-9' },
      });

      expect(afterRetry).toMatchObject({ state: 'pending', runAt: T0 + 500, attempts: 1, lastError: '503 from Momentum', leaseOwner: null, leaseUntil: null });
      expect(await store.getJob(created.id)).toMatchObject({ state: 'succeeded', attempts: 3, result: { requestId: 'r-9' }, leaseOwner: null });
      const attempts = await store.getAttempts(created.id);
      expect(attempts.map((row) => [row.status, row.errorClass])).toEqual([
        [503, 'http_5xx'],
        [undefined, 'timeout'],
        [200, undefined],
      ]);
      expect(attempts[0]).toEqual({ id: attempts[0]!.id, jobId: created.id, ...attempt });
    });

    it('when a job is deferred for pacing, then it is pending at the new time with the attempt count unchanged', async () => {
      const { store } = await fixture.fresh();
      const created = await runningJob(store);

      await store.finish({ jobId: created.id, leaseOwner: 'w1', outcome: { state: 'deferred', runAt: T0 + 9000 } });

      expect(await store.getJob(created.id)).toMatchObject({ state: 'pending', runAt: T0 + 9000, attempts: 0, leaseOwner: null });
      expect(await store.getAttempts(created.id)).toEqual([]);
    });

    it('when a job ends dead, skipped or cancelled, then the reason and result are kept', async () => {
      const { store } = await fixture.fresh();
      const outcomes = [
        { state: 'dead', reason: '400 invalid meeting', result: { status: 400 } },
        { state: 'skipped', reason: 'unchanged since the last remap' },
        { state: 'cancelled', reason: 'operator cancelled' },
      ] as const;

      for (const outcome of outcomes) {
        const created = await runningJob(store);
        await store.finish({ jobId: created.id, leaseOwner: 'w1', outcome, attempt: outcome.state === 'dead' ? attempt : undefined });
        const stored = await store.getJob(created.id);
        expect(stored).toMatchObject({ state: outcome.state, lastError: outcome.reason, attempts: outcome.state === 'dead' ? 1 : 0 });
        expect(stored?.result).toEqual('result' in outcome ? outcome.result : null);
      }
    });

    it('when an attempt excerpt is longer than 4 KB, then at most 4 KB is stored, cut on a character boundary', async () => {
      const { store } = await fixture.fresh();
      const created = await runningJob(store);
      const excerpt = `${'a'.repeat(4095)}é${'z'.repeat(100)}`;

      await store.finish({ jobId: created.id, leaseOwner: 'w1', outcome: { state: 'dead', reason: '500' }, attempt: { ...attempt, responseExcerpt: excerpt } });

      const [stored] = await store.getAttempts(created.id);
      expect(stored?.responseExcerpt).toBe('a'.repeat(4095));
    });

    it('when a finish carries follow-up jobs and an event update, then they commit with it', async () => {
      const { store } = await fixture.fresh();
      const { created } = await store.ingest(message([uniqueKey('evt')]), () => []);
      const mapping = await runningJob(store);

      await store.finish({
        jobId: mapping.id,
        leaseOwner: 'w1',
        outcome: { state: 'succeeded' },
        enqueue: [job({ kind: 'remap', payload: { meeting: 'm-1' } })],
        eventUpdate: { eventId: created[0]!.id, state: 'mapped', reason: 'remap queued' },
      });

      expect(await store.getEvent(created[0]!.id)).toMatchObject({ state: 'mapped', stateReason: 'remap queued' });
      expect((await claimAll(store, 'w2')).map((claimed) => claimed.payload)).toEqual([{ meeting: 'm-1' }]);
    });

    it('when a job is retried while a newer job of its key is pending, then the retried one is superseded by it', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const older = await runningJob(store, key);
      const [newer] = await store.enqueue([job({ coalesceKey: key })]);

      await store.finish({ jobId: older.id, leaseOwner: 'w1', outcome: { state: 'retry', runAt: T0 + 500, error: '502' }, attempt });

      expect(await store.getJob(older.id)).toMatchObject({ state: 'superseded', supersededBy: newer!.id, attempts: 1, lastError: '502' });
      expect((await claimAll(store, 'w2')).map((claimed) => claimed.id)).toEqual([newer!.id]);
    });

    it('when several jobs of a key succeeded, then lastSucceeded returns the one finished last', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const first = await runningJob(store, key);
      await store.finish({ jobId: first.id, leaseOwner: 'w1', outcome: { state: 'succeeded', result: 'v1' } });
      await new Promise((resolve) => setTimeout(resolve, 5)); // a later finish time than the first
      const second = await runningJob(store, key);
      await store.finish({ jobId: second.id, leaseOwner: 'w1', outcome: { state: 'succeeded', result: 'v2' } });
      const failed = await runningJob(store, key);
      await store.finish({ jobId: failed.id, leaseOwner: 'w1', outcome: { state: 'dead', reason: '400' } });

      expect(await store.lastSucceeded('remap', key)).toMatchObject({ id: second.id, result: 'v2' });
      expect(await store.lastSucceeded('import', key)).toBeUndefined();
      expect(await store.lastSucceeded('remap', uniqueKey('other'))).toBeUndefined();
    });
  });
}
