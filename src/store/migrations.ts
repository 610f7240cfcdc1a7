import { DELIVERED_MEETINGS_MIGRATION } from './delivered-migration.ts';
import { GOOGLE_CHANNELS_MIGRATION, GOOGLE_SYNC_OUTCOME_MIGRATION } from './google-channel-migration.ts';
import { INSTANCE_MIGRATION } from './instance-migration.ts';
import { MEETING_IDENTITY_MIGRATION } from './meeting-identity-migration.ts';
import { MEETING_SEARCH_MIGRATION } from './meeting-search-migration.ts';
import { PUBSUB_CURSOR_MIGRATION } from './pubsub-migration.ts';
import { READ_MODEL_MIGRATION } from './read-model-migration.ts';
import { REFUSAL_MIGRATION } from './refusal-migration.ts';
import { REMATCH_MIGRATION } from './rematch-migration.ts';
import { RETENTION_MIGRATION } from './retention-migration.ts';
import { SEARCH_UPKEEP_MIGRATION } from './search-upkeep-migration.ts';

/**
 * Versioned schema, one logical schema for both engines. Statements are written once with a few
 * type placeholders that each dialect fills in; everything else (partial indexes, constraints) is
 * SQL both SQLite and PostgreSQL accept. A migration, once released, never changes: add a new one.
 */

export type Dialect = 'sqlite' | 'postgres';

export interface Migration {
  version: number;
  name: string;
  statements: string[];
  /** Run after `statements` on PostgreSQL only: what SQLite needs no counterpart for (a function). */
  postgresStatements?: string[];
  /** Run after `statements` on SQLite only: what each engine does its own way (triggers, full-text tables). */
  sqliteStatements?: string[];
}

const TYPES: Record<Dialect, Record<string, string>> = {
  // SQLite: INTEGER PRIMARY KEY is the rowid alias, so ids are cheap and never reused while rows exist.
  sqlite: { id: 'INTEGER PRIMARY KEY', bigint: 'INTEGER', double: 'REAL', int: 'INTEGER', bytes: 'BLOB' },
  postgres: { id: 'BIGSERIAL PRIMARY KEY', bigint: 'BIGINT', double: 'DOUBLE PRECISION', int: 'INTEGER', bytes: 'BYTEA' },
};

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'inbound messages, events, jobs, attempts, rate buckets',
    statements: [
      `CREATE TABLE inbound_messages (
        id {id},
        source TEXT NOT NULL,
        sender_id TEXT,
        raw_payload TEXT NOT NULL,
        received_at {bigint} NOT NULL
      )`,
      `CREATE TABLE inbound_events (
        id {id},
        message_id {bigint} NOT NULL REFERENCES inbound_messages(id),
        source TEXT NOT NULL,
        sender_id TEXT,
        dedupe_key TEXT NOT NULL UNIQUE,
        parsed_payload TEXT NOT NULL,
        received_at {bigint} NOT NULL,
        state TEXT NOT NULL DEFAULT 'received',
        state_reason TEXT
      )`,
      `CREATE TABLE jobs (
        id {id},
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        coalesce_key TEXT,
        state TEXT NOT NULL,
        attempts {int} NOT NULL DEFAULT 0,
        run_at {bigint} NOT NULL,
        lease_owner TEXT,
        lease_until {bigint},
        created_at {bigint} NOT NULL,
        updated_at {bigint} NOT NULL,
        event_id {bigint} REFERENCES inbound_events(id),
        -- Deferred: coalescing marks the old job superseded by the new one's id before inserting it.
        superseded_by {bigint} REFERENCES jobs(id) DEFERRABLE INITIALLY DEFERRED,
        replay_of {bigint} REFERENCES jobs(id),
        last_error TEXT,
        result TEXT
      )`,
      // The claim scans this index in order and stops at LIMIT: its cost does not grow with queue depth.
      `CREATE INDEX jobs_pending_due ON jobs (run_at, id) WHERE state = 'pending'`,
      // Coalescing: at most one pending job per key; a newer enqueue supersedes the pending one.
      `CREATE UNIQUE INDEX jobs_pending_key ON jobs (coalesce_key) WHERE state = 'pending' AND coalesce_key IS NOT NULL`,
      // Per-key exclusion: "is a job of this key running?" must be an index probe.
      `CREATE INDEX jobs_running_key ON jobs (coalesce_key) WHERE state = 'running'`,
      // Expired leases (crashed workers) and releaseLeases scan only running jobs.
      `CREATE INDEX jobs_running_lease ON jobs (lease_until) WHERE state = 'running'`,
      `CREATE INDEX jobs_succeeded_key ON jobs (coalesce_key, kind, updated_at) WHERE state = 'succeeded'`,
      `CREATE INDEX jobs_event ON jobs (event_id) WHERE event_id IS NOT NULL`,
      `CREATE TABLE attempts (
        id {id},
        job_id {bigint} NOT NULL REFERENCES jobs(id),
        started_at {bigint} NOT NULL,
        duration_ms {int} NOT NULL,
        status {int},
        error_class TEXT,
        response_excerpt TEXT,
        upstream_request_id TEXT
      )`,
      `CREATE INDEX attempts_job ON attempts (job_id, id)`,
      `CREATE TABLE rate_buckets (
        key TEXT PRIMARY KEY,
        tokens {double} NOT NULL,
        updated_at {bigint} NOT NULL,
        blocked_until {bigint}
      )`,
    ],
  },
  {
    version: 2,
    name: 'indexes for the admin read models and stats',
    statements: [
      // Listings are newest first with keyset pagination on (created_at, id): an index walk, no sort.
      `CREATE INDEX jobs_created ON jobs (created_at, id)`,
      // Deliveries by kind and state (dead remaps); stats count (kind, state) and find the oldest pending
      // from the index alone. Kind leads so the claim, which filters on state only, keeps its own index.
      `CREATE INDEX jobs_kind_state_created ON jobs (kind, state, created_at, id)`,
      // Filter by meeting (the coalescing key) in every state, not only pending, running or succeeded.
      // Partial: map-event jobs have no key, and every index entry is paid for on the ack path.
      `CREATE INDEX jobs_key_created ON jobs (coalesce_key, created_at, id) WHERE coalesce_key IS NOT NULL`,
      // A delivery's replays, and bulk replay's "not replayed yet".
      `CREATE INDEX jobs_replay_of ON jobs (replay_of) WHERE replay_of IS NOT NULL`,
      `CREATE INDEX inbound_events_received ON inbound_events (received_at, id)`,
    ],
  },
  { version: 3, name: GOOGLE_CHANNELS_MIGRATION.name, statements: [...GOOGLE_CHANNELS_MIGRATION.statements] },
  {
    version: 4,
    name: 'pacing log, priority classes, meeting versions, serial keys',
    statements: [
      // The upstream budget a job draws from (Momentum's per-key limit); NULL for jobs that call no paced upstream.
      `ALTER TABLE jobs ADD COLUMN rate_key TEXT`,
      // 0 operator actions, 1 live changes, 2 bulk work: a claim takes the lowest class first.
      `ALTER TABLE jobs ADD COLUMN priority {int} NOT NULL DEFAULT 1`,
      // Jobs sharing a serial key never run at the same time but, unlike a coalescing key, never replace each other.
      `ALTER TABLE jobs ADD COLUMN serial_key TEXT`,
      // The source's own version of the state a job carries (epoch ms), when the source has one.
      `ALTER TABLE jobs ADD COLUMN source_version {bigint}`,
      `DROP INDEX jobs_pending_due`,
      // The claim walks one budget (or the unpaced jobs) in priority, run_at, id order and stops at LIMIT.
      `CREATE INDEX jobs_pending_due ON jobs (rate_key, priority, run_at, id) WHERE state = 'pending'`,
      `CREATE INDEX jobs_running_serial ON jobs (serial_key) WHERE state = 'running' AND serial_key IS NOT NULL`,
      // One row per call that may have reached the upstream: its time is when it was sent (or, once
      // settled, when its answer came back), so no window of the budget's length ever holds more.
      `CREATE TABLE rate_slots (
        id {id},
        key TEXT NOT NULL,
        job_id {bigint},
        at {bigint} NOT NULL
      )`,
      `CREATE INDEX rate_slots_key_at ON rate_slots (key, at)`,
      `CREATE INDEX rate_slots_job ON rate_slots (job_id) WHERE job_id IS NOT NULL`,
      // Per budget: the row the pacer locks, and the block a 429 (or an exhausted header) imposes.
      `CREATE TABLE rate_limits (
        key TEXT PRIMARY KEY,
        blocked_until {bigint}
      )`,
      // The newest source state seen per meeting: a remap made from an older state never supersedes it.
      `CREATE TABLE meeting_versions (
        coalesce_key TEXT PRIMARY KEY,
        source_version {bigint},
        event_id {bigint} NOT NULL,
        job_id {bigint} NOT NULL
      )`,
      `DROP TABLE rate_buckets`,
    ],
  },
  {
    version: 5,
    name: 'microsoft mailboxes and graph subscriptions',
    statements: [
      `CREATE TABLE microsoft_mailboxes (
        user_id TEXT PRIMARY KEY,
        watching {int} NOT NULL,
        added_by TEXT NOT NULL,
        delta_link TEXT,
        window_started_at {bigint},
        last_sync_at {bigint},
        last_error TEXT,
        updated_at {bigint} NOT NULL
      )`,
      `CREATE TABLE graph_subscriptions (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        client_state TEXT NOT NULL,
        expiration {bigint} NOT NULL,
        created_at {bigint} NOT NULL,
        renewed_at {bigint},
        removed_at {bigint}
      )`,
      // Upkeep and the notification check read only live subscriptions.
      `CREATE INDEX graph_subscriptions_active ON graph_subscriptions (user_id) WHERE removed_at IS NULL`,
    ],
  },
  {
    version: 6,
    name: 'index for the admin activity counts',
    statements: [
      // Jobs by the time they ended (an ended job is never written again): the activity counts read a
      // range of it per kind; state comes last so the index alone answers (PostgreSQL before 17 cannot
      // range-scan a column after an IN list). Partial, so running jobs, whose updated_at moves with
      // every lease extension, stay out.
      `CREATE INDEX jobs_ended ON jobs (kind, updated_at, state) WHERE state IN ('succeeded', 'dead', 'skipped', 'superseded')`,
    ],
  },
  {
    version: 7,
    name: 'admin search reads every stored payload',
    statements: [],
    // PostgreSQL's jsonb refuses some JSON that its text column keeps: the escape \u0000 and unpaired
    // surrogate escapes, which rows written before upstream values were made storable
    // (src/core/storable.ts) may hold. The search reads payloads through this function, so one such
    // row is read with those escapes taken out (or, failing that, not matched) instead of failing
    // every search with a 500. SQLite's json_extract reads them as they are.
    postgresStatements: [
      `CREATE OR REPLACE FUNCTION bridge_search_json(payload TEXT) RETURNS JSONB LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
       BEGIN
         RETURN CAST(payload AS JSONB);
       EXCEPTION WHEN untranslatable_character OR invalid_text_representation THEN
         BEGIN
           RETURN CAST(regexp_replace(payload, '\\\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})', '', 'g') AS JSONB);
         EXCEPTION WHEN untranslatable_character OR invalid_text_representation THEN
           RETURN NULL;
         END;
       END
       $fn$`,
    ],
  },
  {
    version: 8,
    name: 'match records and meeting pins',
    statements: [
      // One per mapping run of a meeting (docs/calendars.md, matching): what decided and why, read back by the admin API.
      `CREATE TABLE match_records (
        id {id},
        event_id {bigint} NOT NULL REFERENCES inbound_events(id),
        map_job_id {bigint},
        meeting_key TEXT NOT NULL,
        outcome TEXT NOT NULL,
        rule TEXT NOT NULL,
        summary TEXT NOT NULL,
        record TEXT NOT NULL,
        created_at {bigint} NOT NULL
      )`,
      `CREATE INDEX match_records_event ON match_records (event_id, id)`,
      `CREATE INDEX match_records_meeting ON match_records (meeting_key, id)`,
      `CREATE INDEX match_records_outcome ON match_records (outcome, id)`,
      // An operator's pick for a meeting: read before every rule, now and at every later mapping.
      `CREATE TABLE meeting_pins (
        meeting_key TEXT PRIMARY KEY,
        records TEXT NOT NULL,
        pinned_by TEXT NOT NULL,
        reason TEXT NOT NULL,
        pinned_at {bigint} NOT NULL
      )`,
    ],
  },
  {
    version: 9,
    name: 'index of jobs by serial key',
    statements: [
      // A meeting's events and deliveries (the admin's meeting page): the map-event jobs of its serial key.
      // Partial: only jobs of a source record carry one.
      `CREATE INDEX jobs_serial_event ON jobs (serial_key, event_id) WHERE serial_key IS NOT NULL`,
    ],
  },
  REMATCH_MIGRATION,
  // Versions 10 and 12 are other work's; a gap is harmless (each version is applied once, in list order).
  { version: 11, name: MEETING_IDENTITY_MIGRATION.name, statements: [...MEETING_IDENTITY_MIGRATION.statements] },
  { version: 12, name: DELIVERED_MEETINGS_MIGRATION.name, statements: [...DELIVERED_MEETINGS_MIGRATION.statements] },
  READ_MODEL_MIGRATION,
  RETENTION_MIGRATION,
  { version: REFUSAL_MIGRATION.version, name: REFUSAL_MIGRATION.name, statements: [...REFUSAL_MIGRATION.statements] },
  INSTANCE_MIGRATION,
  MEETING_SEARCH_MIGRATION,
  { version: GOOGLE_SYNC_OUTCOME_MIGRATION.version, name: GOOGLE_SYNC_OUTCOME_MIGRATION.name, statements: [...GOOGLE_SYNC_OUTCOME_MIGRATION.statements] },
  PUBSUB_CURSOR_MIGRATION,
  SEARCH_UPKEEP_MIGRATION,
];

/** The migrations with the dialect's types filled in, oldest first. */
export function migrationsFor(dialect: Dialect): Migration[] {
  const types = TYPES[dialect];
  return MIGRATIONS.map((migration) => ({
    ...migration,
    statements: [...migration.statements, ...((dialect === 'postgres' ? migration.postgresStatements : migration.sqliteStatements) ?? [])].map((sql) =>
      sql.replace(/\{(\w+)\}/g, (_, name: string) => types[name] ?? `{${name}}`),
    ),
  }));
}

export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;
