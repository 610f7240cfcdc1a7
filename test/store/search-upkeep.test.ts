import { afterEach, expect, it } from 'vitest';

import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/types.ts';
import { type TestDatabase, testDatabase } from '../support/real-store.ts';
import { describeEachEngine, executeSql, queryRows } from '../support/stored-state.ts';

/*
 * The meeting search's read models over a year of re-matching (migration 20,
 * src/store/search-upkeep-migration.ts): an event's search text grows only with ids it does not
 * hold yet, and delivery numbers are never given twice.
 */

let database: TestDatabase | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  await database?.drop();
  [store, database] = [undefined, undefined];
});

const record = (opportunityId: string) =>
  JSON.stringify({ records: { opportunityId, accountId: '0015e00000AcMeAAA' }, candidates: [{ id: opportunityId }, { id: '0065e00000OtHeRAAA' }] });

describeEachEngine('the meeting search kept bounded', (engine) => {
  it('when one event is matched to the same records again and again, then its search text keeps one copy of their ids; a new record adds its ids once', async () => {
    // Arrange: a stored calendar event.
    database = testDatabase(engine, 'upkeep');
    store = await openStore(database.url);
    const { created } = await store.ingest(
      {
        source: 'google',
        rawPayload: '{}',
        receivedAt: 1_000,
        events: [{ dedupeKey: 'g:evt-1', parsedPayload: { version: 1, origin: 'google', eventId: 'EVT-1', title: 'Pricing review' } }],
      },
      () => [],
    );
    const eventId = created[0]!.id;
    const match = (opportunityId: string, at: number) =>
      executeSql(
        database!.url,
        `INSERT INTO match_records (event_id, meeting_key, outcome, rule, summary, record, created_at) VALUES ($1, 'google:EVT-1', 'matched', 'explicit_ids', 's', $2, $3)`,
        [eventId, record(opportunityId), at],
      );
    const text = async () => String((await queryRows(database!.url, 'SELECT text FROM event_search WHERE event_id = $1', [eventId]))[0]?.text);

    // Act: five re-matches to the same opportunity, then one to another, then the first again.
    for (let n = 0; n < 5; n += 1) await match('0065e00000PrIcEAAA', 2_000 + n);
    const afterSame = await text();
    await match('0065e00000NeWwWAAA', 3_000);
    await match('0065e00000PrIcEAAA', 3_001);
    const afterNew = await text();

    // Assert
    const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
    // (A record names its opportunity twice: as chosen and as a candidate.)
    expect(count(afterSame, '0065e00000price')).toBe(2);
    expect(count(afterNew, '0065e00000price')).toBe(2);
    expect(count(afterNew, '0065e00000newww')).toBe(2);
    expect(afterNew.length - afterSame.length).toBeLessThan(100);
    // The search still finds the event by either opportunity.
    const found = await store.listEvents({ textSearch: '0065e00000NeWwW', limit: 10 });
    expect(found.map((event) => event.id)).toEqual([eventId]);
  });

  it('when retention removed the highest-numbered deliveries, then the next delivery still gets a number never given before', async () => {
    database = testDatabase(engine, 'upkeep');
    store = await openStore(database.url);
    const made = await store.enqueue([1, 2, 3].map((n) => ({ kind: 'remap', payload: { n }, coalesceKey: `meeting:${n}` })));
    await executeSql(database.url, 'DELETE FROM jobs WHERE id IN ($1, $2)', [made[1]!.id, made[2]!.id]);

    const [next] = await store.enqueue([{ kind: 'remap', payload: { n: 4 }, coalesceKey: 'meeting:4' }]);

    expect(made.map((job) => job.deliveryNo)).toEqual([1, 2, 3]);
    expect(next?.deliveryNo).toBe(4);
  });
});
