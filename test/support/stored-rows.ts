import { DatabaseSync } from 'node:sqlite';

/**
 * Counts rows in a SQLite store file through a separate read-only connection, so route tests can
 * prove "nothing stored" without widening the Store interface. WAL lets it read beside the store.
 */
export function storedCounts(file: string): { messages: number; events: number; jobs: number } {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const count = (table: string) => Number((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number | bigint }).n);
    return { messages: count('inbound_messages'), events: count('inbound_events'), jobs: count('jobs') };
  } finally {
    db.close();
  }
}

/** The ids of the stored events, oldest first, for reading them back through store.getEvent. */
export function storedEventIds(file: string): number[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare('SELECT id FROM inbound_events ORDER BY id').all() as Array<{ id: number | bigint }>).map((row) => Number(row.id));
  } finally {
    db.close();
  }
}

/** Jobs as stored: kind, payload (JSON text parsed) and the event they belong to. */
export function storedJobs(file: string): Array<{ kind: string; payload: unknown; eventId: number | null; state: string }> {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare('SELECT kind, payload, event_id, state FROM jobs ORDER BY id').all() as Array<{
      kind: string;
      payload: string;
      event_id: number | bigint | null;
      state: string;
    }>;
    return rows.map((row) => ({
      kind: row.kind,
      payload: JSON.parse(row.payload) as unknown,
      eventId: row.event_id === null ? null : Number(row.event_id),
      state: row.state,
    }));
  } finally {
    db.close();
  }
}

/** The raw payloads of the stored messages, oldest first. */
export function storedRawPayloads(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare('SELECT raw_payload FROM inbound_messages ORDER BY id').all() as Array<{ raw_payload: string }>).map((row) => row.raw_payload);
  } finally {
    db.close();
  }
}
