import { notScheduledSweep, queryRows } from '../../support/stored-state.ts';

/*
 * What a bridge stored from the values it was handed, read alike on both engines (queryRows): the
 * jobs with their payloads, and every stored text an upstream value can reach.
 */

export interface StoredJob {
  id: number;
  kind: string;
  state: string;
  payload: unknown;
  lastError: string | null;
  eventId: number | null;
}

/** Jobs as stored, oldest first, their payload (JSON text) parsed; the next re-match sweep, scheduled for later, left out. */
export async function storedJobs(databaseUrl: string): Promise<StoredJob[]> {
  const rows = await queryRows(databaseUrl, `SELECT id, kind, state, payload, last_error, event_id FROM jobs ${notScheduledSweep()} ORDER BY id`);
  return rows.map((row) => ({
    id: Number(row.id),
    kind: String(row.kind),
    state: String(row.state),
    payload: JSON.parse(String(row.payload)) as unknown,
    lastError: row.last_error === null ? null : String(row.last_error),
    eventId: row.event_id === null ? null : Number(row.event_id),
  }));
}

/** Kind and state of every job, oldest first. */
export const jobStates = async (databaseUrl: string) => (await storedJobs(databaseUrl)).map((job) => `${job.kind}:${job.state}`);

/**
 * Every text the bridge stored from a message: raw messages, parsed events, job payloads and
 * results. JSON.stringify writes U+0000 and unpaired surrogates as escapes, so both are looked for
 * as escapes too: PostgreSQL refuses either once the text is read as JSONB (the deliveries search).
 */
export async function storedTexts(databaseUrl: string): Promise<string[]> {
  const texts = [
    ...(await queryRows(databaseUrl, 'SELECT raw_payload AS t FROM inbound_messages')),
    ...(await queryRows(databaseUrl, 'SELECT parsed_payload AS t FROM inbound_events')),
    ...(await queryRows(databaseUrl, 'SELECT payload AS t FROM jobs')),
    ...(await queryRows(databaseUrl, 'SELECT result AS t FROM jobs WHERE result IS NOT NULL')),
  ];
  return texts.map((row) => String(row.t));
}

/** Whether a stored text holds U+0000, its JSON escape, or the JSON escape of a surrogate (JSON.stringify escapes only unpaired ones). */
export const holdsUnstorable = (text: string): boolean => text.includes('\u0000') || /\\u0000|\\ud[89a-f][0-9a-f]{2}/i.test(text);

/** GET /admin/deliveries?q=… (the search casts every payload to JSONB on PostgreSQL): the status and the items' ids. */
export async function searchDeliveries(url: string, adminKey: string, q: string): Promise<{ status: number; ids: number[] }> {
  const response = await fetch(`${url}/admin/deliveries?q=${encodeURIComponent(q)}`, { headers: { authorization: `Bearer ${adminKey}` } });
  const body = (await response.json()) as { items?: Array<{ id: number }> };
  return { status: response.status, ids: (body.items ?? []).map((item) => item.id) };
}
