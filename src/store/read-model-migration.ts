/**
 * The admin's read models, kept by the database as rows change so that no admin read counts,
 * groups or searches the big tables (docs/operations.md, reading a big store):
 *
 * - `store_counts`: rows per table, and jobs per kind, state and priority (`jobs|kind|state|priority`).
 * - `activity_counts`: inbound events per source and ended jobs per kind and state, per minute and
 *   per hour (`span` is the bucket length in ms). A deleted row is not taken back: it happened.
 * - `job_record_ids`: each delivery's Salesforce ids (15 characters, folded), for an exact lookup.
 * - `job_search`: each delivery's searchable text (title, source, meeting id, Salesforce ids,
 *   host and attendee emails), ASCII letters folded to lower case, with a trigram index: pg_trgm's
 *   GIN on PostgreSQL, an FTS5 trigram table on SQLite.
 *
 * Triggers keep them, so every writer (ingest, claims, finishes, retention, a bulk load) keeps
 * them right without knowing they exist. On SQLite the triggers add to the counters directly (one
 * writer). On PostgreSQL they append to `count_deltas` instead: counters updated in place would be
 * rows every ingest locks until it commits, serialising concurrent acks; a fold (count-fold.ts)
 * moves the deltas into the counters every few seconds, and reads add the deltas not yet folded.
 */

const ENDED = `('succeeded', 'dead', 'skipped', 'superseded')`;
const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The searchable text of a delivery payload: the same fields and order the admin's `?q=` documents. */
const SQLITE_SEARCH_TEXT = `lower(concat_ws(char(10),
  json_extract(NEW.payload, '$.request.meetingDetails.title'),
  json_extract(NEW.payload, '$.request.meeting.title'),
  CASE WHEN json_extract(NEW.payload, '$.request.source.type') IS NOT NULL OR json_extract(NEW.payload, '$.request.source.id') IS NOT NULL
    THEN concat_ws(':', json_extract(NEW.payload, '$.request.source.type'), json_extract(NEW.payload, '$.request.source.id')) END,
  json_extract(NEW.payload, '$.request.meeting.id'),
  json_extract(NEW.payload, '$.request.salesforceRecords.opportunityId'),
  json_extract(NEW.payload, '$.request.salesforceRecords.accountId'),
  json_extract(NEW.payload, '$.request.salesforceRecords.leadId'),
  json_extract(NEW.payload, '$.request.meeting.salesforceAccountId'),
  json_extract(NEW.payload, '$.request.meeting.salesforceOpportunityId'),
  json_extract(NEW.payload, '$.request.meetingDetails.hostEmail'),
  json_extract(NEW.payload, '$.request.meeting.host.email'),
  (SELECT group_concat(json_extract(a.value, '$.email'), char(10)) FROM json_each(NEW.payload, '$.request.meeting.attendees') a)))`;

const SQLITE_RECORD_IDS = `INSERT OR IGNORE INTO job_record_ids (record_id, job_id) SELECT lower(substr(v, 1, 15)), NEW.id FROM (
    SELECT json_extract(NEW.payload, '$.request.salesforceRecords.opportunityId') AS v
    UNION ALL SELECT json_extract(NEW.payload, '$.request.salesforceRecords.accountId')
    UNION ALL SELECT json_extract(NEW.payload, '$.request.salesforceRecords.leadId')
    UNION ALL SELECT json_extract(NEW.payload, '$.request.meeting.salesforceAccountId')
    UNION ALL SELECT json_extract(NEW.payload, '$.request.meeting.salesforceOpportunityId')) WHERE typeof(v) = 'text' AND length(v) >= 15;`;
const SQLITE_INDEX_JOB = `INSERT INTO job_search (job_id, created_at, text) VALUES (NEW.id, NEW.created_at, ${SQLITE_SEARCH_TEXT});
  INSERT INTO job_search_fts (rowid, text) SELECT job_id, text FROM job_search WHERE job_id = NEW.id;
  ${SQLITE_RECORD_IDS}`;
const SQLITE_INDEX_JOB_IF_VALID = `INSERT INTO job_search (job_id, created_at, text) SELECT NEW.id, NEW.created_at, ${SQLITE_SEARCH_TEXT} WHERE json_valid(NEW.payload);
  INSERT INTO job_search_fts (rowid, text) SELECT job_id, text FROM job_search WHERE job_id = NEW.id;
  ${SQLITE_RECORD_IDS.replaceAll('NEW.payload', "CASE WHEN json_valid(NEW.payload) THEN NEW.payload ELSE '{}' END")}`;

const jobCountName = (row: 'NEW' | 'OLD') => `'jobs|' || ${row}.kind || '|' || ${row}.state || '|' || ${row}.priority`;

const sqliteCount = (name: string, delta: number) =>
  `INSERT INTO store_counts (name, n) VALUES (${name}, ${delta}) ON CONFLICT (name) DO UPDATE SET n = n + ${delta};`;

const sqliteActivity = (what: string, kind: string, at: string) =>
  [MINUTE, HOUR]
    .map(
      (span) => `INSERT INTO activity_counts (span, bucket, what, kind, n) VALUES (${span}, (${at} / ${span}) * ${span}, ${what}, ${kind}, 1)
        ON CONFLICT (span, bucket, what, kind) DO UPDATE SET n = n + 1;`,
    )
    .join('\n');

const tableCounts = ['inbound_messages', 'inbound_events', 'attempts'] as const;

const SQLITE_STATEMENTS = [
  `CREATE VIRTUAL TABLE job_search_fts USING fts5(text, content='', contentless_delete=1, tokenize='trigram')`,
  ...tableCounts.flatMap((table) => [
    `CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} BEGIN ${sqliteCount(`'${table}'`, 1)} END`,
    `CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} BEGIN ${sqliteCount(`'${table}'`, -1)} END`,
  ]),
  `CREATE TRIGGER inbound_events_activity AFTER INSERT ON inbound_events BEGIN ${sqliteActivity(`'inbound'`, 'NEW.source', 'NEW.received_at')} END`,
  `CREATE TRIGGER jobs_count_insert AFTER INSERT ON jobs BEGIN ${sqliteCount(jobCountName('NEW'), 1)} END`,
  `CREATE TRIGGER jobs_count_update AFTER UPDATE OF kind, state, priority ON jobs
    WHEN OLD.kind IS NOT NEW.kind OR OLD.state IS NOT NEW.state OR OLD.priority IS NOT NEW.priority
    BEGIN ${sqliteCount(jobCountName('OLD'), -1)} ${sqliteCount(jobCountName('NEW'), 1)} END`,
  `CREATE TRIGGER jobs_count_delete AFTER DELETE ON jobs BEGIN ${sqliteCount(jobCountName('OLD'), -1)} END`,
  `CREATE TRIGGER jobs_activity_insert AFTER INSERT ON jobs WHEN NEW.state IN ${ENDED}
    BEGIN ${sqliteActivity('NEW.state', 'NEW.kind', 'NEW.updated_at')} END`,
  `CREATE TRIGGER jobs_activity_update AFTER UPDATE OF state ON jobs WHEN NEW.state IN ${ENDED} AND OLD.state NOT IN ${ENDED}
    BEGIN ${sqliteActivity('NEW.state', 'NEW.kind', 'NEW.updated_at')} END`,
  // json_valid: a payload our own code did not write (a bulk load, a hand edit) is not searchable rather than failing the insert.
  // json_valid: a payload our own code did not write (a bulk load, a hand edit) is not searchable rather than failing the write.
  `CREATE TRIGGER jobs_search_insert AFTER INSERT ON jobs WHEN NEW.kind IN ('remap', 'import') AND json_valid(NEW.payload)
    BEGIN ${SQLITE_INDEX_JOB} END`,
  // The bridge never rewrites a payload; whoever does (a repair by hand) keeps the document true.
  `CREATE TRIGGER jobs_search_update AFTER UPDATE OF payload ON jobs WHEN NEW.kind IN ('remap', 'import')
    BEGIN
      DELETE FROM job_search WHERE job_id = OLD.id;
      DELETE FROM job_search_fts WHERE rowid = OLD.id;
      DELETE FROM job_record_ids WHERE job_id = OLD.id;
      ${SQLITE_INDEX_JOB_IF_VALID}
    END`,
  `CREATE TRIGGER jobs_search_delete AFTER DELETE ON jobs WHEN OLD.kind IN ('remap', 'import')
    BEGIN
      DELETE FROM job_search WHERE job_id = OLD.id;
      DELETE FROM job_search_fts WHERE rowid = OLD.id;
      DELETE FROM job_record_ids WHERE job_id = OLD.id;
    END`,
];

const PG_SEARCH_TEXT = `(SELECT translate(concat_ws(chr(10),
    p #>> '{request,meetingDetails,title}',
    p #>> '{request,meeting,title}',
    CASE WHEN p #> '{request,source,type}' IS NOT NULL OR p #> '{request,source,id}' IS NOT NULL
      THEN concat_ws(':', p #>> '{request,source,type}', p #>> '{request,source,id}') END,
    p #>> '{request,meeting,id}',
    p #>> '{request,salesforceRecords,opportunityId}',
    p #>> '{request,salesforceRecords,accountId}',
    p #>> '{request,salesforceRecords,leadId}',
    p #>> '{request,meeting,salesforceAccountId}',
    p #>> '{request,meeting,salesforceOpportunityId}',
    p #>> '{request,meetingDetails,hostEmail}',
    p #>> '{request,meeting,host,email}',
    (SELECT string_agg(a #>> '{email}', chr(10)) FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(p #> '{request,meeting,attendees}') = 'array' THEN p #> '{request,meeting,attendees}' ELSE '[]'::jsonb END) a)),
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'))`;

const RECORD_PATHS = [
  '{request,salesforceRecords,opportunityId}',
  '{request,salesforceRecords,accountId}',
  '{request,salesforceRecords,leadId}',
  '{request,meeting,salesforceAccountId}',
  '{request,meeting,salesforceOpportunityId}',
];
const PG_RECORD_FIELDS = RECORD_PATHS.map((path) => `d.p #> '${path}'`).join(', ');
const PG_RECORD_ID = `translate(left(v #>> '{}', 15), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;

const PG_STATEMENTS = [
  // An extension is the database's, not the schema's: installed once (under a lock, as schemas
  // migrate concurrently), in public unless it already lives elsewhere; the index names its schema.
  `DO $do$
   DECLARE trgm_schema TEXT;
   BEGIN
     PERFORM pg_advisory_xact_lock(hashtext('crm-sync-bridge pg_trgm'));
     SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
     IF trgm_schema IS NULL THEN
       CREATE EXTENSION pg_trgm SCHEMA public;
       trgm_schema := 'public';
     END IF;
     EXECUTE format('CREATE INDEX job_search_trgm ON job_search USING gin (text %I.gin_trgm_ops)', trgm_schema);
   END
   $do$`,
  `CREATE FUNCTION bridge_count_rows() RETURNS trigger LANGUAGE plpgsql AS $fn$
   BEGIN
     INSERT INTO count_deltas (name, n) VALUES (TG_TABLE_NAME, CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END);
     IF TG_TABLE_NAME = 'inbound_events' AND TG_OP = 'INSERT' THEN
       INSERT INTO count_deltas (name, at, n) VALUES ('activity|inbound|' || NEW.source, NEW.received_at, 1);
     END IF;
     RETURN NULL;
   END $fn$`,
  ...tableCounts.map((table) => `CREATE TRIGGER ${table}_count AFTER INSERT OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION bridge_count_rows()`),
  `CREATE FUNCTION bridge_count_jobs() RETURNS trigger LANGUAGE plpgsql AS $fn$
   BEGIN
     IF TG_OP IN ('UPDATE', 'DELETE') THEN
       INSERT INTO count_deltas (name, n) VALUES ('jobs|' || OLD.kind || '|' || OLD.state || '|' || OLD.priority, -1);
     END IF;
     IF TG_OP IN ('INSERT', 'UPDATE') THEN
       INSERT INTO count_deltas (name, n) VALUES ('jobs|' || NEW.kind || '|' || NEW.state || '|' || NEW.priority, 1);
       IF NEW.state IN ${ENDED} AND (TG_OP = 'INSERT' OR OLD.state NOT IN ${ENDED}) THEN
         INSERT INTO count_deltas (name, at, n) VALUES ('activity|' || NEW.state || '|' || NEW.kind, NEW.updated_at, 1);
       END IF;
     END IF;
     RETURN NULL;
   END $fn$`,
  // The bridge never rewrites a payload; whoever does (a repair by hand) keeps the document true.
  `CREATE FUNCTION bridge_search_jobs() RETURNS trigger LANGUAGE plpgsql AS $fn$
   BEGIN
     IF TG_OP IN ('UPDATE', 'DELETE') THEN
       DELETE FROM job_search WHERE job_id = OLD.id;
       DELETE FROM job_record_ids WHERE job_id = OLD.id;
     END IF;
     IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.kind IN ('remap', 'import') THEN
       INSERT INTO job_search (job_id, created_at, text)
         SELECT NEW.id, NEW.created_at, ${PG_SEARCH_TEXT} FROM (SELECT bridge_search_json(NEW.payload) AS p) d WHERE d.p IS NOT NULL;
       INSERT INTO job_record_ids (record_id, job_id)
         SELECT DISTINCT ${PG_RECORD_ID}, NEW.id FROM (SELECT bridge_search_json(NEW.payload) AS p) d,
           LATERAL unnest(ARRAY[${PG_RECORD_FIELDS}]) AS v WHERE jsonb_typeof(v) = 'string' AND length(v #>> '{}') >= 15;
     END IF;
     RETURN NULL;
   END $fn$`,
  `CREATE TRIGGER jobs_search AFTER INSERT OR DELETE OR UPDATE OF payload ON jobs FOR EACH ROW EXECUTE FUNCTION bridge_search_jobs()`,
  `CREATE TRIGGER jobs_count_insert_delete AFTER INSERT OR DELETE ON jobs FOR EACH ROW EXECUTE FUNCTION bridge_count_jobs()`,
  `CREATE TRIGGER jobs_count_update AFTER UPDATE OF kind, state, priority ON jobs FOR EACH ROW
    WHEN (OLD.kind IS DISTINCT FROM NEW.kind OR OLD.state IS DISTINCT FROM NEW.state OR OLD.priority IS DISTINCT FROM NEW.priority)
    EXECUTE FUNCTION bridge_count_jobs()`,
];

/**
 * Rows written before this migration are counted and indexed once, in the migration itself (an
 * existing big store pays this once, at the upgrade).
 */
const BACKFILL = [
  `INSERT INTO store_counts (name, n) SELECT 'jobs|' || kind || '|' || state || '|' || priority, COUNT(*) FROM jobs GROUP BY kind, state, priority`,
  ...tableCounts.map((table) => `INSERT INTO store_counts (name, n) SELECT '${table}', COUNT(*) FROM ${table}`),
  ...[MINUTE, HOUR].flatMap((span) => [
    `INSERT INTO activity_counts (span, bucket, what, kind, n)
      SELECT ${span}, (received_at / ${span}) * ${span}, 'inbound', source, COUNT(*) FROM inbound_events GROUP BY 2, 4`,
    `INSERT INTO activity_counts (span, bucket, what, kind, n)
      SELECT ${span}, (updated_at / ${span}) * ${span}, state, kind, COUNT(*) FROM jobs WHERE state IN ${ENDED} GROUP BY 2, 3, 4`,
  ]),
];

const SQLITE_BACKFILL_SEARCH = `INSERT INTO job_search (job_id, created_at, text)
  SELECT NEW.id, NEW.created_at, ${SQLITE_SEARCH_TEXT} FROM (SELECT id, created_at, payload FROM jobs WHERE kind IN ('remap', 'import') AND json_valid(payload)) AS NEW`;
const SQLITE_BACKFILL_RECORD_IDS = `INSERT OR IGNORE INTO job_record_ids (record_id, job_id) SELECT lower(substr(v, 1, 15)), id FROM (
  ${[
    '$.request.salesforceRecords.opportunityId',
    '$.request.salesforceRecords.accountId',
    '$.request.salesforceRecords.leadId',
    '$.request.meeting.salesforceAccountId',
    '$.request.meeting.salesforceOpportunityId',
  ]
    .map((path) => `SELECT id, json_extract(payload, '${path}') AS v FROM jobs WHERE kind IN ('remap', 'import') AND json_valid(payload)`)
    .join(' UNION ALL ')}) WHERE typeof(v) = 'text' AND length(v) >= 15`;
const PG_BACKFILL_RECORD_IDS = `INSERT INTO job_record_ids (record_id, job_id)
  SELECT DISTINCT ${PG_RECORD_ID}, d.id FROM (SELECT id, bridge_search_json(payload) AS p FROM jobs WHERE kind IN ('remap', 'import')) d,
    LATERAL unnest(ARRAY[${PG_RECORD_FIELDS}]) AS v WHERE jsonb_typeof(v) = 'string' AND length(v #>> '{}') >= 15`;
const PG_BACKFILL_SEARCH = `INSERT INTO job_search (job_id, created_at, text)
  SELECT d.id, d.created_at, ${PG_SEARCH_TEXT} FROM (SELECT id, created_at, bridge_search_json(payload) AS p FROM jobs WHERE kind IN ('remap', 'import')) d WHERE d.p IS NOT NULL`;

export const READ_MODEL_MIGRATION = {
  version: 13,
  name: 'counters, activity roll-ups and a trigram search index kept by triggers',
  statements: [
    `CREATE TABLE store_counts (name TEXT PRIMARY KEY, n {bigint} NOT NULL)`,
    `CREATE TABLE activity_counts (
      span {bigint} NOT NULL,
      bucket {bigint} NOT NULL,
      what TEXT NOT NULL,
      kind TEXT NOT NULL,
      n {bigint} NOT NULL,
      PRIMARY KEY (span, bucket, what, kind)
    )`,
    // Written by PostgreSQL's triggers only; SQLite's stays empty, so both engines read counters the same way.
    `CREATE TABLE count_deltas (id {id}, name TEXT NOT NULL, at {bigint}, n {int} NOT NULL)`,
    `CREATE TABLE job_search (job_id {bigint} PRIMARY KEY, created_at {bigint} NOT NULL, text TEXT NOT NULL)`,
    // A common word is found newest first by walking this index (the trigram index cannot order).
    `CREATE INDEX job_search_created ON job_search (created_at, job_id)`,
    // The Salesforce ids a delivery names, by their 15-character form folded like the document:
    // ids share long common prefixes (key prefix, pod), so a trigram lookup of one reads big
    // posting lists, where this is one B-tree probe.
    `CREATE TABLE job_record_ids (record_id TEXT NOT NULL, job_id {bigint} NOT NULL, PRIMARY KEY (record_id, job_id))`,
    `CREATE INDEX job_record_ids_job ON job_record_ids (job_id)`,
    ...BACKFILL,
  ],
  sqliteStatements: [
    ...SQLITE_STATEMENTS.slice(0, 1),
    SQLITE_BACKFILL_SEARCH,
    SQLITE_BACKFILL_RECORD_IDS,
    `INSERT INTO job_search_fts (rowid, text) SELECT job_id, text FROM job_search`,
    ...SQLITE_STATEMENTS.slice(1),
  ],
  postgresStatements: [PG_BACKFILL_SEARCH, PG_BACKFILL_RECORD_IDS, ...PG_STATEMENTS],
};
