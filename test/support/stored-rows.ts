import { DatabaseSync } from 'node:sqlite';

/**
 * Reads a SQLite store file through a separate read-only connection, so tests can check what was
 * stored (and that nothing was) without widening the Store interface. WAL lets it read beside the store.
 */
function read<T>(file: string, work: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

const count = (db: DatabaseSync, table: string) => Number((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number | bigint }).n);

/** Rows in every table of the store (the PostgreSQL variant is in real-store.ts). */
export interface StoredCounts {
  messages: number;
  events: number;
  jobs: number;
  calendars: number;
}

export const STORE_TABLES: Readonly<Record<keyof StoredCounts, string>> = {
  messages: 'inbound_messages',
  events: 'inbound_events',
  jobs: 'jobs',
  calendars: 'google_calendars',
};

export function tableCounts(file: string): StoredCounts {
  return read(file, (db) => ({
    messages: count(db, STORE_TABLES.messages),
    events: count(db, STORE_TABLES.events),
    jobs: count(db, STORE_TABLES.jobs),
    calendars: count(db, STORE_TABLES.calendars),
  }));
}

/** What an inbound route may store: messages, events and jobs. */
export function storedCounts(file: string): { messages: number; events: number; jobs: number } {
  return read(file, (db) => ({ messages: count(db, STORE_TABLES.messages), events: count(db, STORE_TABLES.events), jobs: count(db, STORE_TABLES.jobs) }));
}

export function storedEvents(
  file: string,
): Array<{ id: number; source: string; senderId: string | null; dedupeKey: string; payload: unknown; state: string; reason: string | null }> {
  return read(file, (db) =>
    (
      db.prepare('SELECT id, source, sender_id, dedupe_key, parsed_payload, state, state_reason FROM inbound_events ORDER BY id').all() as Array<
        Record<string, unknown>
      >
    ).map((row) => ({
      id: Number(row.id),
      source: String(row.source),
      senderId: row.sender_id === null ? null : String(row.sender_id),
      dedupeKey: String(row.dedupe_key),
      payload: JSON.parse(String(row.parsed_payload)) as unknown,
      state: String(row.state),
      reason: row.state_reason === null ? null : String(row.state_reason),
    })),
  );
}

/** The ids of the stored events, oldest first, for reading them back through store.getEvent. */
export function storedEventIds(file: string): number[] {
  return read(file, (db) => (db.prepare('SELECT id FROM inbound_events ORDER BY id').all() as Array<{ id: number | bigint }>).map((row) => Number(row.id)));
}

/** Jobs as stored, oldest first, their payload (JSON text) parsed. */
export function storedJobs(
  file: string,
): Array<{ id: number; kind: string; payload: unknown; coalesceKey: string | null; state: string; eventId: number | null }> {
  return read(file, (db) =>
    (db.prepare('SELECT id, kind, payload, coalesce_key, state, event_id FROM jobs ORDER BY id').all() as Array<Record<string, unknown>>).map((row) => ({
      id: Number(row.id),
      kind: String(row.kind),
      payload: JSON.parse(String(row.payload)) as unknown,
      coalesceKey: row.coalesce_key === null ? null : String(row.coalesce_key),
      state: String(row.state),
      eventId: row.event_id === null ? null : Number(row.event_id),
    })),
  );
}

/** The raw payloads of the stored messages, oldest first. */
export function storedRawPayloads(file: string): string[] {
  return read(file, (db) =>
    (db.prepare('SELECT raw_payload FROM inbound_messages ORDER BY id').all() as Array<{ raw_payload: string }>).map((row) => row.raw_payload),
  );
}
