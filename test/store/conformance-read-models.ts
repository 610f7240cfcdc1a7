import { describe, expect, it } from 'vitest';

import { PROBE_CAP, WALK_WINDOW } from '../../src/store/job-search-sql.ts';
import type { Job, JobState, NewJob, Store } from '../../src/store/types.ts';
import { claimAll, job, message, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

const HOUR = 3_600_000;
const KINDS = ['remap', 'import'];
const ids = (jobs: Job[]) => jobs.map((listed) => listed.id);

const remap = (title: string, extra: Record<string, unknown> = {}): NewJob =>
  job({ payload: { request: { source: { type: 'GOOGLE_CALENDAR', id: uniqueKey('evt') }, meetingDetails: { title }, ...extra } } });

/** Every (kind, state) the jobs table holds, counted by COUNT(*) (countJobs reads the table, not the counters). */
async function countedByTable(store: Store, kinds: string[], states: JobState[]) {
  const rows: Array<{ kind: string; state: JobState; count: number }> = [];
  for (const kind of kinds) {
    for (const state of states) {
      const count = await store.countJobs({ kinds: [kind], states: [state] });
      if (count > 0) rows.push({ kind, state, count });
    }
  }
  return rows.sort((a, b) => a.kind.localeCompare(b.kind) || a.state.localeCompare(b.state));
}

/** The read models kept as rows change (counters, activity roll-ups, the search index) answer what the tables hold. */
export function readModelConformance(harness: StoreHarness): void {
  describe('read models kept as rows change', () => {
    const fixture = useFixture(harness);

    it('when jobs are enqueued, claimed, finished, retried and cancelled, then the stats counters equal what the tables hold', async () => {
      const { store } = await fixture.fresh();
      await store.ingest(message([uniqueKey('a'), uniqueKey('b')]), () => [job({ kind: 'map-event' })]);
      const created = await store.enqueue([job(), job(), job({ kind: 'import' }), job({ kind: 'import', priority: 2 })]);
      const claimed = await claimAll(store, 'w');
      const [first, second, third] = claimed;
      await store.finish({ jobId: first!.id, leaseOwner: 'w', outcome: { state: 'succeeded', result: {} } });
      await store.finish({ jobId: second!.id, leaseOwner: 'w', outcome: { state: 'dead', reason: 'refused' } });
      await store.finish({ jobId: third!.id, leaseOwner: 'w', outcome: { state: 'retry', error: 'busy', runAt: T0 + 5000 } });
      await store.cancelJob(created.at(-1)!.id, 'not needed');

      const stats = await store.stats();

      const table = await countedByTable(store, ['import', 'map-event', 'remap'], ['pending', 'running', 'succeeded', 'dead', 'cancelled']);
      expect(stats.counts).toEqual(table);
      expect(stats.stored).toMatchObject({ inboundMessages: 1, inboundEvents: 2, jobs: 6, oldestEventAt: T0 });
      expect(stats.pendingByPriority.reduce((sum, entry) => sum + entry.count, 0)).toBe(await store.countJobs({ states: ['pending'] }));
    });

    it('when a store is reopened, then its counters carry on from what it held', async () => {
      const { store, reopen } = await fixture.fresh();
      await store.enqueue([job(), job()]);
      await store.close();

      const again = await reopen();
      await again.enqueue([job()]);

      expect((await again.stats()).counts).toEqual([{ kind: 'remap', state: 'pending', count: 3 }]);
    });

    it('when the operator searches deliveries, then the index finds text in titles, sources, Salesforce ids and emails, A-Z as a-z and all else exactly', async () => {
      const { store } = await fixture.fresh();
      const [pricing, imported, other] = await store.enqueue([
        remap('Pricing Review', { salesforceRecords: { opportunityId: '0065w000023STAmAAO' } }),
        job({
          kind: 'import',
          payload: {
            request: {
              meeting: {
                id: 'zoom-9',
                title: 'Café Éclair 50%',
                host: { email: 'Host@Acme.example' },
                attendees: [{ email: 'Buyer@Customer.example' }, { name: 'no email' }],
              },
            },
          },
        }),
        remap('Weekly sync', { salesforceRecords: { accountId: '0015w00002XyZaBAAV' } }),
        job({ kind: 'map-event', payload: { title: 'Pricing Review' } }),
      ]);
      const found = async (text: string, extra: Partial<Parameters<Store['listJobs']>[0]> = {}) =>
        ids(await store.listJobs({ kinds: KINDS, textSearch: text, order: 'oldest', limit: 50, ...extra }));

      expect(await found('pricing REVIEW')).toEqual([pricing!.id]);
      expect(await found('google_calendar:')).toEqual([pricing!.id, other!.id]);
      expect(await found('STAM')).toEqual([pricing!.id]);
      expect(await found('buyer@customer')).toEqual([imported!.id]);
      expect(await found('host@acme.example')).toEqual([imported!.id]);
      expect(await found('Éclair 50%')).toEqual([imported!.id]);
      expect(await found('éclair')).toEqual([]);
      expect(await found('5%')).toEqual([]);
      expect(await found('no email')).toEqual([]);
      expect(await found('matches nothing at all')).toEqual([]);
      // Shorter than a trigram: walked, with the same answer.
      expect(await found('zo')).toEqual([imported!.id]);
      expect(await found('w', { kinds: ['remap'] })).toEqual([pricing!.id, other!.id]);
      expect(await store.countJobs({ textSearch: 'xyzab' })).toBe(1);
      // The payload check keeps a Salesforce id's case exact while the index narrows.
      expect(await found('0065w000023STAm', { payloadContains: '0065w000023STAm' })).toEqual([pricing!.id]);
      expect(await found('0065w000023STAm', { payloadContains: '0065w000023stam' })).toEqual([]);
    });

    it(`when a text is common but not among the newest ${WALK_WINDOW} deliveries, then it is walked newest first and pages continue exactly where they stopped`, async () => {
      const { store } = await fixture.fresh();
      const common: Job[] = [];
      for (let chunk = 0; chunk < 3; chunk += 1) {
        common.push(...(await store.enqueue(Array.from({ length: Math.ceil((PROBE_CAP + 1) / 3) }, () => remap('Quarterly review')))));
      }
      const [rare] = await store.enqueue([remap('Quarterly planning')]);
      for (let chunk = 0; chunk < 4; chunk += 1) await store.enqueue(Array.from({ length: WALK_WINDOW / 4 }, () => remap('Weekly sync')));
      const newestFirst = [...common].sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
      const search = (text: string, extra: Partial<Parameters<Store['listJobs']>[0]> = {}) =>
        store.listJobs({ kinds: KINDS, textSearch: text, limit: 50, ...extra });

      const first = await search('quarterly rev');
      const last = first.at(-1)!;
      const second = await search('quarterly rev', { after: { at: last.createdAt, id: last.id } });
      const pending = await search('quarterly', { states: ['pending'], limit: 3 });

      expect(ids(first)).toEqual(ids(newestFirst.slice(0, 50)));
      expect(ids(second)).toEqual(ids(newestFirst.slice(50, 100)));
      expect(ids(pending)).toEqual([rare!.id, ...ids(newestFirst.slice(0, 2))]);
      expect(ids(await search('quarterly planning'))).toEqual([rare!.id]);
      expect(await store.countJobs({ textSearch: 'quarterly review' })).toBe(common.length);
    });

    it('when activity is read on whole hours, then the roll-up answers exactly what counting the rows answers', async () => {
      const { store } = await fixture.fresh();
      for (const receivedAt of [T0, T0 + 1, T0 + HOUR - 1, T0 + HOUR, T0 + 5 * HOUR + 7]) {
        await store.ingest(message([uniqueKey('evt')], { receivedAt }), () => []);
      }
      const [done] = await store.enqueue([job()]);
      await claimAll(store, 'w', Date.now());
      await store.finish({ jobId: done!.id, leaseOwner: 'w', outcome: { state: 'succeeded', result: {} } });
      const ended = (await store.getJob(done!.id))!.updatedAt;
      const since = Math.floor(T0 / HOUR) * HOUR;
      const until = since + 24 * HOUR;
      const endedHour = Math.floor(ended / HOUR) * HOUR;

      const rolledUp = await store.activity({ since, until, bucketMs: HOUR, kinds: KINDS });
      // One millisecond off the hour: no roll-up fits, so the rows themselves are counted.
      const counted = await store.activity({ since: since + 1, until: until + 1, bucketMs: HOUR, kinds: KINDS });
      const endedBuckets = await store.activity({ since: endedHour, until: endedHour + HOUR, bucketMs: HOUR, kinds: KINDS });

      expect(rolledUp.map((bucket) => bucket.inbound)).toEqual(counted.map((bucket) => bucket.inbound));
      expect(rolledUp.reduce((sum, bucket) => sum + bucket.inbound, 0)).toBe(5);
      expect(endedBuckets).toEqual([{ start: endedHour, inbound: 0, succeeded: 1, dead: 0, skipped: 0, superseded: 0, rematched: 0 }]);
    });
  });
}
