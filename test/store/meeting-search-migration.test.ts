import { afterEach, expect, it } from 'vitest';

import { MIGRATIONS_TABLE, migrationsFor } from '../../src/store/migrations.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/types.ts';
import { type Engine, type TestDatabase, testDatabase } from '../support/real-store.ts';
import { describeEachEngine, executeSql, queryRows } from '../support/stored-state.ts';

/*
 * Upgrading a store that already holds deliveries and events (migration 17,
 * src/store/meeting-search-migration.ts): existing deliveries are numbered in id order and later
 * ones continue the sequence; existing events become searchable.
 */

let database: TestDatabase | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  await database?.drop();
  [store, database] = [undefined, undefined];
});

/** The schema as the release before migration 17 left it. */
async function migrateBefore17(engine: Engine, url: string): Promise<void> {
  if (engine === 'postgres') await executeSql(url.replace(/\?.*$/, ''), `CREATE SCHEMA "${new URL(url).searchParams.get('schema')}"`);
  const statements = [MIGRATIONS_TABLE];
  for (const migration of migrationsFor(engine).filter((item) => item.version < 17)) {
    statements.push(...migration.statements, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${migration.version}, 'before 17', 0)`);
  }
  // One statement per call: both engines' drivers run a single statement with parameters.
  for (const statement of statements) await executeSql(url, statement);
}

describeEachEngine('Migration 17 on a store with data', (engine) => {
  it('when deliveries and internal jobs are stored before the upgrade, then the deliveries are numbered 1…n in id order and new ones follow', async () => {
    database = testDatabase(engine, 'mig17');
    await migrateBefore17(engine, database.url);
    const insertJob = `INSERT INTO jobs (kind, payload, state, run_at, created_at, updated_at) VALUES ($1, '{}', 'succeeded', 0, 0, 0)`;
    for (const kind of ['map-event', 'remap', 'crm-sweep', 'import', 'map-event', 'remap']) await executeSql(database.url, insertJob, [kind]);
    await executeSql(database.url, `INSERT INTO inbound_messages (source, raw_payload, received_at) VALUES ('google', '{}', 5)`);
    await executeSql(
      database.url,
      `INSERT INTO inbound_events (message_id, source, dedupe_key, parsed_payload, received_at) VALUES (1, 'google', 'g:old', $1, 5)`,
      [
        JSON.stringify({
          version: 1,
          origin: 'google',
          eventId: 'OLD-EVT',
          title: 'Legacy Kickoff',
          start: '2025-01-01T10:00:00Z',
          attendees: [{ email: 'Old@Client.test' }],
        }),
      ],
    );

    store = await openStore(database.url);
    const [next] = await store.enqueue([{ kind: 'remap', payload: {} }]);

    const rows = await queryRows(database.url, 'SELECT kind, delivery_no FROM jobs ORDER BY id');
    expect(rows.map((row) => [row.kind, row.delivery_no])).toEqual([
      ['map-event', null],
      ['remap', 1],
      ['crm-sweep', null],
      ['import', 2],
      ['map-event', null],
      ['remap', 3],
      ['remap', 4],
    ]);
    expect(next!.deliveryNo).toBe(4);
    const [document] = await queryRows(database.url, 'SELECT text FROM event_search WHERE event_id = 1');
    expect(String(document!.text).split('\n')).toEqual(['legacy kickoff', 'old-evt', 'old@client.test', 'g:old']);
    expect((await store.listEvents({ textSearch: 'Kickoff', limit: 10 })).map((event) => event.id)).toEqual([1]);
  });
});
