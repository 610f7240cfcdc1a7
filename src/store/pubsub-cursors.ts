import {
  PUBSUB_STATES,
  type PubSubCursor,
  type PubSubCursorAdvance,
  type PubSubCursors,
  type PubSubLease,
  PubSubLeaseLostError,
  type PubSubState,
} from './pubsub-types.ts';
import { num, numOrNull, textOrNull } from './row-mappers.ts';
import type { SqlRunner } from './sql-channel-store.ts';

/**
 * PubSubCursors over either engine (pubsub_cursors, migration 19), and the statement the inbox's
 * ingest runs in its own transaction to store a replay id with its events.
 */

type Row = Record<string, unknown>;

/** Both engines take a Buffer for a BLOB or BYTEA; a copy, so a caller's later change of its array stores nothing. */
function replayBytes(replayId: Uint8Array): Buffer {
  if (!(replayId instanceof Uint8Array) || replayId.length === 0) throw new TypeError('a replay id is a non-empty byte array');
  return Buffer.from(replayId);
}

const finiteTime = (value: number, name: string): number => {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be epoch milliseconds, not ${String(value)}`);
  return value;
};

// A first event creates the row as subscribed: events arrive only on an open stream.
const ADVANCE_SET = `ON CONFLICT (org_id, topic) DO UPDATE SET replay_id = excluded.replay_id,
    commit_timestamp = COALESCE(excluded.commit_timestamp, pubsub_cursors.commit_timestamp),
    last_event_at = excluded.last_event_at, updated_at = excluded.updated_at`;
const ADVANCE = `INSERT INTO pubsub_cursors (org_id, topic, replay_id, commit_timestamp, last_event_at, state, updated_at)
  VALUES ($1, $2, $3, $4, $5, 'subscribed', $5) ${ADVANCE_SET}`;

/** Whether `$6` (lease name) is held by `$7` (owner) unexpired at `$5`: a condition of the fenced writes. */
const LEASE_HELD = `EXISTS (SELECT 1 FROM singleton_leases l WHERE l.name = $6 AND l.owner = $7 AND l.lease_until > $5)`;
// The same, only while the lease is held: no row is written otherwise, and the caller fails the ingest.
const FENCED_ADVANCE = `INSERT INTO pubsub_cursors (org_id, topic, replay_id, commit_timestamp, last_event_at, state, updated_at)
  SELECT $1, $2, $3, $4, $5, 'subscribed', $5 WHERE ${LEASE_HELD} ${ADVANCE_SET}`;

type AdvanceParams = [string, string, Buffer, number | null, number, ...string[]];

/**
 * The statement and its parameters that store `cursor`; throws (rolling the ingest back) on a
 * malformed one. With a lease, a statement that wrote no row means the lease is lost: the caller
 * throws `PubSubLeaseLostError` so the events are not stored either.
 */
export function cursorAdvance(cursor: PubSubCursorAdvance): { sql: string; params: AdvanceParams; lease?: PubSubLease } {
  const commit = cursor.commitTimestamp === undefined ? null : finiteTime(cursor.commitTimestamp, 'commitTimestamp');
  const params: AdvanceParams = [cursor.orgId, cursor.topic, replayBytes(cursor.replayId), commit, finiteTime(cursor.at, 'at')];
  if (cursor.lease === undefined) return { sql: ADVANCE, params };
  return { sql: FENCED_ADVANCE, params: [...params, cursor.lease.name, cursor.lease.owner], lease: cursor.lease };
}

function cursorFromRow(row: Row): PubSubCursor {
  const bytes = row.replay_id;
  return {
    orgId: String(row.org_id),
    topic: String(row.topic),
    // SQLite answers a Uint8Array, pg a Buffer: the same bytes, handed out as a plain copy.
    replayId: bytes === null || bytes === undefined ? null : new Uint8Array(bytes as Uint8Array),
    commitTimestamp: numOrNull(row.commit_timestamp),
    lastEventAt: numOrNull(row.last_event_at),
    lastKeepaliveAt: numOrNull(row.last_keepalive_at),
    lastError: textOrNull(row.last_error),
    lastErrorAt: numOrNull(row.last_error_at),
    resubscribes: num(row.resubscribes),
    state: String(row.state) as PubSubState,
    holder: textOrNull(row.holder),
    updatedAt: num(row.updated_at),
  };
}

export function createSqlPubSubCursors(runner: SqlRunner): PubSubCursors {
  const q = (sql: string, params: readonly unknown[] = []) => runner.query(sql, params);
  return {
    async get(orgId, topic) {
      const [row] = await q(`SELECT * FROM pubsub_cursors WHERE org_id = $1 AND topic = $2`, [orgId, topic]);
      return row === undefined ? undefined : cursorFromRow(row);
    },
    async list() {
      return (await q(`SELECT * FROM pubsub_cursors ORDER BY org_id, topic`)).map(cursorFromRow);
    },
    async saveKeepalive(orgId, topic, replayId, at, lease) {
      const set = `ON CONFLICT (org_id, topic) DO UPDATE SET replay_id = excluded.replay_id, last_keepalive_at = excluded.last_keepalive_at,
        updated_at = excluded.updated_at`;
      const params = [orgId, topic, replayBytes(replayId), finiteTime(at, 'at')];
      if (lease === undefined) {
        await q(
          `INSERT INTO pubsub_cursors (org_id, topic, replay_id, last_keepalive_at, state, updated_at) VALUES ($1, $2, $3, $4, 'subscribed', $4) ${set}`,
          params,
        );
        return;
      }
      // RETURNING answers the row written, on both engines: none when the lease is lost.
      const written = await q(
        `INSERT INTO pubsub_cursors (org_id, topic, replay_id, last_keepalive_at, state, updated_at)
         SELECT $1, $2, $3, $4, 'subscribed', $4 WHERE EXISTS (SELECT 1 FROM singleton_leases l WHERE l.name = $5 AND l.owner = $6 AND l.lease_until > $4)
         ${set} RETURNING topic`,
        [...params, lease.name, lease.owner],
      );
      if (written.length === 0) throw new PubSubLeaseLostError(lease);
    },
    async noteState(orgId, topic, note) {
      if (!PUBSUB_STATES.includes(note.state)) throw new TypeError(`unknown Pub/Sub state ${String(note.state)}`);
      const at = finiteTime(note.at, 'at');
      const error = note.error ?? null;
      await q(
        `INSERT INTO pubsub_cursors (org_id, topic, state, last_error, last_error_at, resubscribes, holder, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (org_id, topic) DO UPDATE SET state = excluded.state,
           last_error = COALESCE(excluded.last_error, pubsub_cursors.last_error),
           last_error_at = COALESCE(excluded.last_error_at, pubsub_cursors.last_error_at),
           resubscribes = pubsub_cursors.resubscribes + excluded.resubscribes,
           holder = CASE WHEN $9 = 1 THEN excluded.holder ELSE pubsub_cursors.holder END,
           updated_at = excluded.updated_at`,
        [
          orgId,
          topic,
          note.state,
          error,
          error === null ? null : at,
          note.state === 'resubscribing' ? 1 : 0,
          note.holder ?? null,
          at,
          note.holder === undefined ? 0 : 1,
        ],
      );
    },
  };
}
