import { documentHas, foldAscii, idsTable, type SearchIndex, type SearchPlan } from './job-search-sql.ts';
import type { Dialect } from './migrations.ts';
import { limitParam } from './sql.ts';

/**
 * Where a listing reads its rows from, and the columns its keyset order walks, for listings with
 * and without a text search (jobs through job_search, inbound events through event_search). A
 * search reads through its plan (job-search-sql.ts): the probe's ids, or a walk of the documents in
 * time order, whole or over a window of their next rows; `CROSS JOIN` makes SQLite drive from the
 * left (PostgreSQL plans joins freely).
 */

export type Add = (value: string | number) => string;
export type Keyset = { after?: { at: number; id: number }; newest: boolean };

/** Rows strictly past `after` in the listing's order, on the columns the order walks. */
export const pastPosition = (time: string, id: string, keyset: Keyset, add: Add): string[] =>
  keyset.after === undefined
    ? []
    : [`(${time}, ${id}) ${keyset.newest ? '<' : '>'} (CAST(${add(keyset.after.at)} AS BIGINT), CAST(${add(keyset.after.id)} AS BIGINT))`];

/** A listed table: its name and alias in the listing, its time column, and its search documents with theirs. */
export interface Listed {
  table: string;
  alias: string;
  time: string;
  index: SearchIndex;
  documentTime: string;
}

/**
 * Each search document's row, looked up by id as the documents come: on PostgreSQL a LATERAL
 * subquery that OFFSET 0 keeps from being flattened, since with stale statistics (a bulk load
 * before ANALYZE) the planner would otherwise hash the whole table to join a page.
 */
const rowOf = (dialect: Dialect, listed: Listed): string =>
  dialect === 'sqlite'
    ? `CROSS JOIN ${listed.table} ${listed.alias} ON ${listed.alias}.id = s.${listed.index.id}`
    : `CROSS JOIN LATERAL (SELECT * FROM ${listed.table} WHERE id = s.${listed.index.id} OFFSET 0) ${listed.alias}`;

export interface Source {
  from: string;
  time: string;
  id: string;
}

export function listingSource(
  listed: Listed,
  text: string | undefined,
  dialect: Dialect,
  plan: SearchPlan | undefined,
  keyset: Keyset,
  add: Add,
  where: string[],
): Source {
  const [a, s] = [listed.alias, listed.index];
  if (text === undefined) {
    where.push(...pastPosition(`${a}.${listed.time}`, `${a}.id`, keyset, add));
    return { from: `${listed.table} ${a}`, time: `${a}.${listed.time}`, id: `${a}.id` };
  }
  const exact = documentHas(dialect, add(foldAscii(text)));
  if (plan === undefined) throw new Error('a text search needs its plan (planSearch)');
  if (plan.kind === 'ids') {
    where.push(`s.${s.id} = c.value`, exact, ...pastPosition(`${a}.${listed.time}`, `${a}.id`, keyset, add));
    return {
      from: `${idsTable(dialect, add(JSON.stringify(plan.ids)))} c CROSS JOIN ${s.table} s ${rowOf(dialect, listed)}`,
      time: `${a}.${listed.time}`,
      id: `${a}.id`,
    };
  }
  where.push(exact);
  const [time, id] = [`s.${listed.documentTime}`, `s.${s.id}`];
  if (plan.windowRows === undefined) {
    where.push(...pastPosition(time, id, keyset, add));
    return { from: `${s.table} s ${rowOf(dialect, listed)}`, time, id };
  }
  const direction = keyset.newest ? 'DESC' : 'ASC';
  const past = pastPosition(`w.${listed.documentTime}`, `w.${s.id}`, keyset, add);
  const window = `SELECT w.${s.id}, w.${listed.documentTime}, w.text FROM ${s.table} w${past.length === 0 ? '' : ` WHERE ${past.join(' AND ')}`}
    ORDER BY w.${listed.documentTime} ${direction}, w.${s.id} ${direction} ${limitParam(add(plan.windowRows))}`;
  return { from: `(${window}) s ${rowOf(dialect, listed)}`, time, id };
}
