import type { Dialect } from './migrations.ts';
import type { Row } from './row-mappers.ts';
import { limitParam } from './sql.ts';

/**
 * The operator's search over deliveries (`JobFilter.textSearch`), answered from `job_search`
 * (read-model-migration.ts) in time that follows the answer, not the table:
 *
 * 1. A probe asks the trigram index (pg_trgm's GIN, SQLite's FTS5 trigram table) for at most
 *    PROBE_CAP + 1 matching ids. A rare text (a Salesforce id, an email, a word that matches
 *    nothing) ends here: the listing reads those jobs by id and sorts a few thousand rows at most.
 * 2. A common text (more than PROBE_CAP matches, or under three characters, which a trigram index
 *    cannot look up) is found by walking `job_search` newest first on its time index: at least one
 *    row in every (table size / PROBE_CAP) matches, so a page fills after a bounded walk. A trigram
 *    index cannot return rows in time order, which is why the walk exists at all.
 *
 * Both steps check the exact text (`instr`/`strpos` on the folded document), so the index only
 * narrows: SQLite's trigram table folds more than ASCII, and the answer must not depend on which
 * engine gave it.
 */

/** Above this many matches a text counts as common: walked, not sorted. */
export const PROBE_CAP = 5000;

/** A-Z to a-z and nothing else, as the search document is folded on both engines. */
export const foldAscii = (text: string): string => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** Trigram indexes need three characters to look anything up. */
export const indexable = (text: string): boolean => [...text].length >= 3;

export type SearchPlan = { kind: 'ids'; ids: number[] } | { kind: 'walk' };

/** Step 1: the probe's SQL and parameters for the folded text. */
export function probeQuery(folded: string, dialect: Dialect): { sql: string; params: Array<string | number> } {
  if (dialect === 'sqlite') {
    // An FTS5 phrase: the text inside double quotes, a quote doubled; newest ids first (FTS5 walks rowids in either order).
    return {
      sql: `SELECT rowid AS id FROM job_search_fts WHERE job_search_fts MATCH $1 ORDER BY rowid DESC ${limitParam('$2')}`,
      params: [`"${folded.replaceAll('"', '""')}"`, PROBE_CAP + 1],
    };
  }
  // LIKE is what pg_trgm's GIN operator class serves; its wildcards and escape in the text are made literal.
  return {
    sql: `SELECT job_id AS id FROM job_search WHERE text LIKE $1 ${limitParam('$2')}`,
    params: [`%${folded.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, PROBE_CAP + 1],
  };
}

export async function planSearch(folded: string, dialect: Dialect, all: (sql: string, params: Array<string | number>) => Promise<Row[]>): Promise<SearchPlan> {
  if (!indexable(folded)) return { kind: 'walk' };
  const { sql, params } = probeQuery(folded, dialect);
  const rows = await all(sql, params);
  return rows.length > PROBE_CAP ? { kind: 'walk' } : { kind: 'ids', ids: rows.map((row) => Number(row.id)) };
}

/** The exact check of the folded text in a delivery's document `s`. */
export const documentHas = (dialect: Dialect, text: string): string =>
  dialect === 'sqlite' ? `instr(s.text, CAST(${text} AS TEXT)) > 0` : `strpos(s.text, CAST(${text} AS TEXT)) > 0`;

/** The rows of a JSON array of ids, as a table `c(value)` of BIGINTs to drive a join from. */
export const idsTable = (dialect: Dialect, json: string): string =>
  dialect === 'sqlite'
    ? `(SELECT CAST(value AS INTEGER) AS value FROM json_each(${json}))`
    : `(SELECT CAST(value AS BIGINT) AS value FROM jsonb_array_elements_text(CAST(${json} AS JSONB)))`;
