import { DatabaseSync } from 'node:sqlite';

import { expect, it } from 'vitest';

import { walkSteps } from '../../src/store/retention-sql.ts';
import { RETENTION_WALKS } from '../../src/store/retention-types.ts';
import { toSqlite } from '../../src/store/sql.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { openRealStore } from '../support/real-store.ts';

/*
 * Deleting by age must never read a whole table: every statement of every walk, and every check a
 * foreign key makes on a delete, is planned as an index search. SQLite's planner is asked here;
 * PostgreSQL plans by cost, so its plans follow the tables' sizes (docs/operations.md, retention).
 */

const cleanups = cleanupAfterEach();

it('when each walk of a retention batch is planned on SQLite, then every table is searched by an index, none scanned', async () => {
  // Arrange: the migrated schema; each step fed a row that lets the walk go on to its deletions.
  const real = await openRealStore('sqlite', 'retention_plans');
  cleanups.push(real.close);
  const db = new DatabaseSync(real.file, { readOnly: true });
  cleanups.push(() => db.close());
  const fed = [{ id: 1, made_at: 0, removable: 1, event_id: 1, goes: 1, target: 2, record_key: 'sf:a', meeting_id: 1 }];

  // Act
  const plans: string[] = [];
  for (const walk of RETENTION_WALKS) {
    const steps = walkSteps('sqlite', { walk, after: 0, before: 1, restBefore: 1, limit: 10 });
    for (let step = steps.next(); !step.done; step = steps.next(fed)) {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${toSqlite(step.value.sql)}`).all(...(step.value.params as Array<string | number>));
      plans.push(...plan.map((row) => `${walk}: ${String(row.detail)}`));
    }
  }

  // Assert: the only scans are of the id list itself and of the batch already picked.
  expect(plans.filter((line) => /\bSCAN\b/.test(line) && !/SCAN (json_each|t)\b/.test(line))).toEqual([]);
  // …and the checks foreign keys make on the deletes find the rows pointing at them through an index each.
  const indexes = [
    'inbound_events_message',
    'jobs_superseded_by',
    'jobs_replay_of',
    'jobs_event',
    'match_records_event',
    'meeting_sources_event',
    'meeting_versions_job',
  ];
  expect(indexes.filter((index) => !plans.some((line) => line.includes(`INDEX ${index} `)))).toEqual([]);
});
