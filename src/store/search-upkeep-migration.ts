import { DELIVERY, PG_MATCH_IDS, SQLITE_MATCH_IDS } from './meeting-search-migration.ts';
import type { Migration } from './migrations.ts';

/**
 * Keeps migration 17's read models bounded over a year of re-matching (docs/operations.md, finding
 * a meeting):
 * - a match record adds its Salesforce ids to its event's search text only when that text does not
 *   hold them already: pins, reprocessing and the re-match sweep map a meeting's newest event again
 *   and again, mostly to the same records, and each append rewrote the whole index entry;
 * - SQLite numbers deliveries from a one-row counter instead of the highest number stored, so a
 *   number retention removed is never given again (PostgreSQL's sequence never reuses one).
 */

const SQLITE_STATEMENTS = [
  `DROP TRIGGER match_records_search_insert`,
  `CREATE TRIGGER match_records_search_insert AFTER INSERT ON match_records
    WHEN json_valid(NEW.record) AND (SELECT instr(s.text, char(10) || ${SQLITE_MATCH_IDS}) FROM event_search s WHERE s.event_id = NEW.event_id) = 0
    BEGIN
      DELETE FROM event_search_fts WHERE rowid = NEW.event_id;
      UPDATE event_search SET text = text || char(10) || ${SQLITE_MATCH_IDS} WHERE event_id = NEW.event_id;
      INSERT INTO event_search_fts (rowid, text) SELECT event_id, text FROM event_search WHERE event_id = NEW.event_id;
    END`,
  `CREATE TABLE delivery_counter (id INTEGER PRIMARY KEY CHECK (id = 1), last INTEGER NOT NULL)`,
  `INSERT INTO delivery_counter (id, last) SELECT 1, COALESCE(MAX(delivery_no), 0) FROM jobs`,
  `DROP TRIGGER jobs_delivery_no`,
  `CREATE TRIGGER jobs_delivery_no AFTER INSERT ON jobs WHEN NEW.kind IN ${DELIVERY} AND NEW.delivery_no IS NULL
    BEGIN
      UPDATE delivery_counter SET last = last + 1 WHERE id = 1;
      UPDATE jobs SET delivery_no = (SELECT last FROM delivery_counter WHERE id = 1) WHERE id = NEW.id;
    END`,
];

const PG_STATEMENTS = [
  `CREATE OR REPLACE FUNCTION bridge_match_search() RETURNS trigger LANGUAGE plpgsql AS $fn$
   DECLARE r JSONB; ids TEXT;
   BEGIN
     r := bridge_search_json(NEW.record);
     IF r IS NOT NULL THEN
       ids := chr(10) || ${PG_MATCH_IDS};
       UPDATE event_search SET text = text || ids WHERE event_id = NEW.event_id AND strpos(text, ids) = 0;
     END IF;
     RETURN NEW;
   END
   $fn$`,
];

export const SEARCH_UPKEEP_MIGRATION: Migration = {
  version: 20,
  name: 'event search appends new match ids only; SQLite delivery numbers from a counter',
  statements: [],
  sqliteStatements: SQLITE_STATEMENTS,
  postgresStatements: PG_STATEMENTS,
};
