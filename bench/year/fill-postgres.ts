import pg from 'pg';

import { openStore } from '../../src/store/open-store.ts';
import { foldCounts } from '../../src/store/postgres/count-fold.ts';
import { createPgDatabase } from '../../src/store/postgres/pool.ts';
import { benchLogger } from '../lib/null-logger.ts';
import type { FillWriter } from './fill.ts';
import { postgresBytes, postgresSchema, postgresSchemaUrl, postgresUrl } from './store-cache.ts';
import { FILLED_TABLES, type FilledTable } from './templates.ts';

/**
 * The PostgreSQL fill: the schema is created by the bridge's own openStore (its migrations), then
 * each chunk's rows go in as one `INSERT … SELECT * FROM unnest(…)` per table (a plain INSERT: row
 * triggers fire for every row), one transaction per chunk with synchronous_commit off (set-up, not
 * what is measured). Afterwards the id sequences are moved past the ids the fill chose, and every
 * table of the schema is vacuumed and analysed, as autovacuum would have done over a year.
 */

const ARRAY_TYPES: Record<string, string> = { text: 'text[]', bigint: 'int8[]', integer: 'int4[]', 'double precision': 'float8[]' };
const SET_SUPERSEDED_BY = `UPDATE jobs SET superseded_by = l.successor FROM unnest($1::int8[], $2::int8[]) AS l(job, successor) WHERE jobs.id = l.job`;
/** The tables whose ids the fill chooses (their rows are referred to by id). */
const SEQUENCED = ['inbound_messages', 'inbound_events', 'jobs', 'meetings'] as const;

export async function postgresWriter(events: number, columns: Record<FilledTable, string[]>): Promise<FillWriter> {
  const schema = postgresSchema(events);
  const store = await openStore(postgresSchemaUrl(events), { logger: benchLogger('warn') });
  await store.close();
  const client = new pg.Client({ connectionString: postgresUrl(), options: `-c search_path=${schema}` });
  await client.connect();
  await client.query('SET synchronous_commit = off');
  const { rows: typeRows } = await client.query('SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1', [schema]);
  const typeOf = new Map((typeRows as Array<Record<string, string>>).map((row) => [`${row.table_name}.${row.column_name}`, row.data_type]));
  const inserts = new Map(
    FILLED_TABLES.map((table) => {
      const arrays = columns[table].map((column, index) => {
        const type = ARRAY_TYPES[typeOf.get(`${table}.${column}`) ?? ''];
        if (type === undefined) throw new Error(`no array type for ${table}.${column} (${typeOf.get(`${table}.${column}`)})`);
        return `$${index + 1}::${type}`;
      });
      return [table, `INSERT INTO ${table} (${columns[table].join(', ')}) SELECT * FROM unnest(${arrays.join(', ')})`];
    }),
  );
  const max = async (table: string) => Number((await client.query(`SELECT COALESCE(MAX(id), 0) AS m FROM ${table}`)).rows[0]?.m);

  return {
    async base() {
      return { message: await max('inbound_messages'), event: await max('inbound_events'), job: await max('jobs'), meeting: await max('meetings') };
    },
    async write(chunk) {
      await client.query('BEGIN');
      try {
        for (const table of FILLED_TABLES) {
          const list = chunk.rows[table];
          if (list.length === 0) continue;
          const params = columns[table].map((_, index) => list.map((row) => row[index]));
          await client.query(inserts.get(table)!, params);
        }
        if (chunk.supersededBy.length > 0) {
          await client.query(SET_SUPERSEDED_BY, [chunk.supersededBy.map(([job]) => job), chunk.supersededBy.map(([, successor]) => successor)]);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    },
    async finish() {
      // The triggers' deltas go into the counters now, as the bridge's fold would over the year.
      const database = createPgDatabase({ url: postgresUrl(), schema, poolMax: 1, logger: benchLogger('warn') });
      await foldCounts(database).finally(() => database.pool.end());
      for (const table of SEQUENCED) {
        await client.query(`SELECT setval(pg_get_serial_sequence('${schema}.${table}', 'id'), GREATEST((SELECT MAX(id) FROM ${table}), 1))`);
      }
      const { rows: tables } = await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1`, [schema]);
      for (const { tablename } of tables as Array<{ tablename: string }>) await client.query(`VACUUM (ANALYZE) "${schema}"."${tablename}"`);
      await client.end();
      return postgresBytes(schema);
    },
  };
}
