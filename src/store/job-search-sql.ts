import type { Dialect } from './migrations.ts';
import type { Row } from './row-mappers.ts';
import { limitParam } from './sql.ts';

/**
 * The operator's search over deliveries (`JobFilter.textSearch`), answered from `job_search`
 * (read-model-migration.ts), and over inbound events (`EventListQuery.textSearch`), answered from
 * `event_search` (meeting-search-migration.ts), in time that follows the answer, not the table. A trigram index
 * cannot return rows in time order, and its cost grows with how common the text's trigrams are
 * (PostgreSQL's GIN builds the whole bitmap before any LIMIT), so a search goes in steps:
 *
 * 1. A window: the next WALK_WINDOW documents in the listing's order, checked for the text. A
 *    common text (a title word, a company's email domain) fills the page here, and the rows past
 *    the window all come later in the order, so the page is exact.
 * 2. A probe of the trigram index (pg_trgm's GIN, SQLite's FTS5 trigram table) for one segment of
 *    the text (its letters and digits between separators), the one likeliest to be rare first:
 *    one holding a digit (an id, a numbered room), then the longest. A rare segment answers with
 *    at most PROBE_CAP ids, and the listing reads those jobs by id. Probing one segment rather
 *    than the whole text keeps common pieces (`google_calendar:`, `@acme.com`) out of the index
 *    lookup.
 * 3. Otherwise (no segment of three characters, the least a trigram index looks up, or every
 *    probe too common) a walk of job_search in time order to the end of the page.
 *
 * Every step checks the exact text (`instr`/`strpos` on the folded document), so the index only
 * narrows: SQLite's trigram table folds more than ASCII, a segment matches more than the text,
 * and the answer must not depend on which engine or step gave it.
 */

/** Documents a search reads in time order before it asks the index. */
export const WALK_WINDOW = 20_000;
/** Segments probed before a search falls back to the walk. */
const PROBES_MAX = 2;

/** Above this many matches a text counts as common: walked, not sorted. */
export const PROBE_CAP = 5000;

/** A-Z to a-z and nothing else, as the search document is folded on both engines. */
export const foldAscii = (text: string): string => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** Trigram indexes need three characters to look anything up. */
const indexable = (text: string): boolean => [...text].length >= 3;

export type SearchPlan = { kind: 'ids'; ids: number[] } | { kind: 'walk'; windowRows?: number };

/**
 * A searchable document table: its trigram-indexed `text` keyed by `id` (PostgreSQL's GIN on the
 * table, SQLite's FTS5 table `fts` by rowid), and optionally a table of exact Salesforce ids.
 */
export interface SearchIndex {
  table: string;
  id: string;
  fts: string;
  recordIds?: string;
}

/** Deliveries' documents (read-model-migration.ts). */
export const JOB_INDEX: SearchIndex = { table: 'job_search', id: 'job_id', fts: 'job_search_fts', recordIds: 'job_record_ids' };
/** Inbound events' documents (meeting-search-migration.ts). */
export const EVENT_INDEX: SearchIndex = { table: 'event_search', id: 'event_id', fts: 'event_search_fts' };

/** The segments worth probing, likeliest rare first. */
function probeSegments(folded: string): string[] {
  const segments = [...new Set(folded.split(/[^\p{L}\p{N}]+/u))].filter(indexable);
  const hasDigit = (segment: string) => /\p{N}/u.test(segment);
  return segments.sort((a, b) => Number(hasDigit(b)) - Number(hasDigit(a)) || [...b].length - [...a].length).slice(0, PROBES_MAX);
}

/** Step 2's probe of one segment: its SQL and parameters. */
function probeQuery(segment: string, dialect: Dialect, index: SearchIndex): { sql: string; params: Array<string | number> } {
  if (dialect === 'sqlite') {
    // An FTS5 phrase: the segment inside double quotes (a segment holds no quote).
    return { sql: `SELECT rowid AS id FROM ${index.fts} WHERE ${index.fts} MATCH $1 ${limitParam('$2')}`, params: [`"${segment}"`, PROBE_CAP + 1] };
  }
  // LIKE is what pg_trgm's GIN operator class serves; a segment holds no LIKE wildcard.
  return { sql: `SELECT ${index.id} AS id FROM ${index.table} WHERE text LIKE $1 ${limitParam('$2')}`, params: [`%${segment}%`, PROBE_CAP + 1] };
}

/** A whole Salesforce id (15 or 18 letters and digits, folded): looked up in job_record_ids by its 15-character form. */
const RECORD_ID = /^[a-z0-9]{15}(?:[a-z0-9]{3})?$/;

/** Steps 2 and 3: the deliveries naming the Salesforce id, or the ids of the first rare segment, or the walk. */
export async function planSearch(
  folded: string,
  dialect: Dialect,
  all: (sql: string, params: Array<string | number>) => Promise<Row[]>,
  index: SearchIndex = JOB_INDEX,
): Promise<SearchPlan> {
  if (index.recordIds !== undefined && RECORD_ID.test(folded)) {
    const rows = await all(`SELECT job_id AS id FROM ${index.recordIds} WHERE record_id = $1 ${limitParam('$2')}`, [folded.slice(0, 15), PROBE_CAP + 1]);
    // An id found there is a complete answer only when it names a record; otherwise it may sit in a title: probe as text.
    if (rows.length > 0 && rows.length <= PROBE_CAP) return { kind: 'ids', ids: rows.map((row) => Number(row.id)) };
  }
  for (const segment of probeSegments(folded)) {
    const { sql, params } = probeQuery(segment, dialect, index);
    const rows = await all(sql, params);
    if (rows.length <= PROBE_CAP) return { kind: 'ids', ids: rows.map((row) => Number(row.id)) };
  }
  return { kind: 'walk' };
}

/** The exact check of the folded text in a delivery's document `s`. */
export const documentHas = (dialect: Dialect, text: string): string =>
  dialect === 'sqlite' ? `instr(s.text, CAST(${text} AS TEXT)) > 0` : `strpos(s.text, CAST(${text} AS TEXT)) > 0`;

/** The rows of a JSON array of ids, as a table `c(value)` of BIGINTs to drive a join from. */
export const idsTable = (dialect: Dialect, json: string): string =>
  dialect === 'sqlite'
    ? `(SELECT CAST(value AS INTEGER) AS value FROM json_each(${json}))`
    : `(SELECT CAST(value AS BIGINT) AS value FROM jsonb_array_elements_text(CAST(${json} AS JSONB)))`;
