import { NUMBERED_KINDS } from './job-types.ts';
import type { Migration } from './migrations.ts';

/**
 * "What happened to meeting X?" (docs/operations.md, finding a meeting): what the admin's meeting
 * search and delivery numbers read, kept by the database as rows change, like the read models of
 * read-model-migration.ts.
 *
 * - `event_search`: each inbound event's searchable text, ASCII letters folded: its title (a
 *   calendar's or recording's `title`), the ids it carries (calendar event id, iCalUID, recording
 *   meeting id, Zoom uuid and number), the organiser's, host's and attendees' emails, every field
 *   of a Salesforce notification (Id, WhatId, Subject…), its dedupe key; then the Salesforce ids
 *   each match record of the event named (chosen and candidates). Every event has one, mapped,
 *   skipped or refused at mapping, so a meeting that never produced a delivery is found too. A
 *   trigram index serves it as job_search's does (job-search-sql.ts).
 * - `jobs.delivery_no`: the number an operator sees for a delivery (remap, import, replays and
 *   manual ones included), without the gaps internal jobs leave in job ids. PostgreSQL draws it
 *   from a SEQUENCE in a BEFORE INSERT trigger, so concurrent instances never share one (a number
 *   drawn by a transaction that rolls back is not reused: a gap, documented); SQLite took the
 *   highest plus one, which its single writer makes safe, until migration 20 gave it a counter
 *   (search-upkeep-migration.ts). Existing deliveries are numbered in id order.
 */

export const DELIVERY = `(${NUMBERED_KINDS.map((kind) => `'${kind}'`).join(', ')})`;

const SQLITE_EVENT_TEXT = (row: string) => `lower(concat_ws(char(10),
  json_extract(${row}.parsed_payload, '$.title'),
  json_extract(${row}.parsed_payload, '$.eventId'),
  json_extract(${row}.parsed_payload, '$.iCalUId'),
  json_extract(${row}.parsed_payload, '$.meetingId'),
  json_extract(${row}.parsed_payload, '$.zoomUuid'),
  json_extract(${row}.parsed_payload, '$.zoomMeetingId'),
  json_extract(${row}.parsed_payload, '$.organizerEmail'),
  json_extract(${row}.parsed_payload, '$.host.email'),
  (SELECT group_concat(json_extract(a.value, '$.email'), char(10)) FROM json_each(${row}.parsed_payload, '$.attendees') a WHERE json_type(a.value) = 'object'),
  (SELECT group_concat(f.value, char(10)) FROM json_each(${row}.parsed_payload, '$.fields') f WHERE json_type(${row}.parsed_payload, '$.fields') = 'object'),
  ${row}.dedupe_key))`;

export const SQLITE_MATCH_IDS = `lower(concat_ws(char(10),
  json_extract(NEW.record, '$.records.opportunityId'),
  json_extract(NEW.record, '$.records.accountId'),
  json_extract(NEW.record, '$.records.leadId'),
  (SELECT group_concat(json_extract(c.value, '$.id'), char(10)) FROM json_each(NEW.record, '$.candidates') c WHERE json_type(c.value) = 'object')))`;

const SQLITE_STATEMENTS = [
  `CREATE VIRTUAL TABLE event_search_fts USING fts5(text, content='', contentless_delete=1, tokenize='trigram')`,
  `INSERT INTO event_search_fts (rowid, text) SELECT event_id, text FROM event_search`,
  // json_valid: a payload our own code did not write (a bulk load, a hand edit) is searchable by its dedupe key only.
  `CREATE TRIGGER inbound_events_search_insert AFTER INSERT ON inbound_events
    BEGIN
      INSERT INTO event_search (event_id, received_at, text)
        VALUES (NEW.id, NEW.received_at, CASE WHEN json_valid(NEW.parsed_payload) THEN ${SQLITE_EVENT_TEXT('NEW')} ELSE lower(NEW.dedupe_key) END);
      INSERT INTO event_search_fts (rowid, text) SELECT event_id, text FROM event_search WHERE event_id = NEW.id;
    END`,
  `CREATE TRIGGER inbound_events_search_delete AFTER DELETE ON inbound_events
    BEGIN
      DELETE FROM event_search WHERE event_id = OLD.id;
      DELETE FROM event_search_fts WHERE rowid = OLD.id;
    END`,
  `CREATE TRIGGER match_records_search_insert AFTER INSERT ON match_records WHEN json_valid(NEW.record)
    BEGIN
      DELETE FROM event_search_fts WHERE rowid = NEW.event_id;
      UPDATE event_search SET text = text || char(10) || ${SQLITE_MATCH_IDS} WHERE event_id = NEW.event_id;
      INSERT INTO event_search_fts (rowid, text) SELECT event_id, text FROM event_search WHERE event_id = NEW.event_id;
    END`,
  `CREATE TRIGGER jobs_delivery_no AFTER INSERT ON jobs WHEN NEW.kind IN ${DELIVERY} AND NEW.delivery_no IS NULL
    BEGIN
      UPDATE jobs SET delivery_no = COALESCE((SELECT d.delivery_no FROM jobs d WHERE d.delivery_no IS NOT NULL ORDER BY d.delivery_no DESC LIMIT 1), 0) + 1 WHERE id = NEW.id;
    END`,
];

const FOLD = `'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'`;

const PG_EVENT_TEXT = (row: string) => `translate(concat_ws(chr(10),
    p ->> 'title', p ->> 'eventId', p ->> 'iCalUId', p ->> 'meetingId', p ->> 'zoomUuid', p ->> 'zoomMeetingId',
    p ->> 'organizerEmail', p #>> '{host,email}',
    (SELECT string_agg(a ->> 'email', chr(10)) FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(p -> 'attendees') = 'array' THEN p -> 'attendees' ELSE '[]'::jsonb END) a WHERE jsonb_typeof(a) = 'object'),
    (SELECT string_agg(f.value, chr(10)) FROM jsonb_each_text(
      CASE WHEN jsonb_typeof(p -> 'fields') = 'object' THEN p -> 'fields' ELSE '{}'::jsonb END) f),
    ${row}.dedupe_key), ${FOLD})`;

export const PG_MATCH_IDS = `translate(concat_ws(chr(10),
    r #>> '{records,opportunityId}', r #>> '{records,accountId}', r #>> '{records,leadId}',
    (SELECT string_agg(c ->> 'id', chr(10)) FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(r -> 'candidates') = 'array' THEN r -> 'candidates' ELSE '[]'::jsonb END) c WHERE jsonb_typeof(c) = 'object')), ${FOLD})`;

const PG_STATEMENTS = [
  // pg_trgm is installed by migration 13 (read-model-migration.ts); the index names its schema.
  `DO $do$
   DECLARE trgm_schema TEXT;
   BEGIN
     SELECT n.nspname INTO trgm_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
     EXECUTE format('CREATE INDEX event_search_trgm ON event_search USING gin (text %I.gin_trgm_ops)', trgm_schema);
   END
   $do$`,
  `CREATE FUNCTION bridge_event_search() RETURNS trigger LANGUAGE plpgsql AS $fn$
   DECLARE p JSONB;
   BEGIN
     IF TG_OP = 'DELETE' THEN
       DELETE FROM event_search WHERE event_id = OLD.id;
       RETURN OLD;
     END IF;
     p := bridge_search_json(NEW.parsed_payload);
     INSERT INTO event_search (event_id, received_at, text) VALUES (NEW.id, NEW.received_at, ${PG_EVENT_TEXT('NEW')});
     RETURN NEW;
   END
   $fn$`,
  `CREATE TRIGGER inbound_events_search AFTER INSERT OR DELETE ON inbound_events FOR EACH ROW EXECUTE FUNCTION bridge_event_search()`,
  `CREATE FUNCTION bridge_match_search() RETURNS trigger LANGUAGE plpgsql AS $fn$
   DECLARE r JSONB;
   BEGIN
     r := bridge_search_json(NEW.record);
     IF r IS NOT NULL THEN
       UPDATE event_search SET text = text || chr(10) || ${PG_MATCH_IDS} WHERE event_id = NEW.event_id;
     END IF;
     RETURN NEW;
   END
   $fn$`,
  `CREATE TRIGGER match_records_search AFTER INSERT ON match_records FOR EACH ROW EXECUTE FUNCTION bridge_match_search()`,
  `CREATE SEQUENCE jobs_delivery_no_seq`,
  `SELECT setval('jobs_delivery_no_seq', COALESCE(MAX(delivery_no), 0) + 1, false) FROM jobs`,
  `CREATE FUNCTION bridge_delivery_no() RETURNS trigger LANGUAGE plpgsql AS $fn$
   BEGIN
     IF NEW.kind IN ${DELIVERY} AND NEW.delivery_no IS NULL THEN
       NEW.delivery_no := nextval('jobs_delivery_no_seq');
     END IF;
     RETURN NEW;
   END
   $fn$`,
  `CREATE TRIGGER jobs_delivery_no BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION bridge_delivery_no()`,
];

/** The backfill of event_search: what the insert trigger would have written for each stored event. */
const SQLITE_BACKFILL = `INSERT INTO event_search (event_id, received_at, text)
  SELECT e.id, e.received_at, CASE WHEN json_valid(e.parsed_payload) THEN ${SQLITE_EVENT_TEXT('e')} ELSE lower(e.dedupe_key) END
  FROM inbound_events e`;
const PG_BACKFILL = `INSERT INTO event_search (event_id, received_at, text)
  SELECT e.id, e.received_at, ${PG_EVENT_TEXT('e')} FROM inbound_events e CROSS JOIN LATERAL (SELECT bridge_search_json(e.parsed_payload) AS p) d`;

export const MEETING_SEARCH_MIGRATION: Migration = {
  version: 17,
  name: 'meeting search over inbound events, delivery numbers',
  statements: [
    `CREATE TABLE event_search (event_id {bigint} PRIMARY KEY, received_at {bigint} NOT NULL, text TEXT NOT NULL)`,
    // The events listing's order (received_at, id): a search walks it newest first.
    `CREATE INDEX event_search_received ON event_search (received_at, event_id)`,
    `ALTER TABLE jobs ADD COLUMN delivery_no {bigint}`,
    `UPDATE jobs SET delivery_no = r.n FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM jobs WHERE kind IN ${DELIVERY}) r WHERE jobs.id = r.id`,
    `CREATE UNIQUE INDEX jobs_delivery_no ON jobs (delivery_no) WHERE delivery_no IS NOT NULL`,
  ],
  sqliteStatements: [SQLITE_BACKFILL, ...SQLITE_STATEMENTS],
  postgresStatements: [PG_BACKFILL, ...PG_STATEMENTS],
};
