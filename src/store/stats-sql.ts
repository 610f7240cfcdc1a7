import type { Row } from './row-mappers.ts';
import { JOB_PRIORITY, type JobState, type PriorityClass, type StoreStats } from './types.ts';

/**
 * The store's stats from its counters (read-model-migration.ts), never by counting the big tables:
 * one read of the counters, then one statement of index probes per kind (the oldest pending job
 * on jobs_kind_state_created, the jobs that ended dead in the last 24 h on jobs_ended, the oldest
 * stored rows on their time indexes). The cost follows the number of kinds, not of rows.
 */

const DAY_MS = 86_400_000;

export const STATS_SQL = {
  /** Counters plus the deltas PostgreSQL has not folded into them yet (always none on SQLite). */
  counts: `SELECT name, SUM(n) AS n FROM (SELECT name, n FROM store_counts UNION ALL SELECT name, n FROM count_deltas WHERE at IS NULL) c GROUP BY name`,
  oldestStored: `SELECT 'oldestEvent' AS what, '' AS kind, (SELECT MIN(received_at) FROM inbound_events) AS n
    UNION ALL SELECT 'oldestJob', '', (SELECT MIN(created_at) FROM jobs)`,
} as const;

/** Per kind: its oldest pending job (when it has pending ones) and its jobs dead since $1. */
export function probesQuery(kinds: readonly string[], pending: ReadonlySet<string>, deadSince: number): { sql: string; params: Array<string | number> } {
  const params: Array<string | number> = [];
  const add = (value: string | number) => {
    params.push(value);
    return `$${params.length}`;
  };
  const parts = kinds.flatMap((kind) => {
    const k = add(kind);
    const since = add(deadSince);
    // The IN list repeats jobs_ended's own condition: SQLite uses a partial index only when the query states its condition.
    const dead = `SELECT 'dead' AS what, CAST(${k} AS TEXT) AS kind, (SELECT COUNT(*) FROM jobs WHERE kind = ${k} AND updated_at >= CAST(${since} AS BIGINT)
      AND state = 'dead' AND state IN ('succeeded', 'dead', 'skipped', 'superseded')) AS n`;
    const oldest = `SELECT 'oldest', CAST(${k} AS TEXT), (SELECT MIN(created_at) FROM jobs WHERE kind = ${k} AND state = 'pending')`;
    return pending.has(kind) ? [dead, oldest] : [dead];
  });
  return { sql: [...parts, STATS_SQL.oldestStored].join(' UNION ALL '), params };
}

export interface CounterTotals {
  jobs: Map<string, { kind: string; state: JobState; priority: number; count: number }>;
  tables: Map<string, number>;
}

/** Counter rows as jobs per (kind, state, priority) and rows per table; zero counts dropped. */
export function countersFromRows(rows: Row[]): CounterTotals {
  const totals: CounterTotals = { jobs: new Map(), tables: new Map() };
  for (const row of rows) {
    const name = String(row.name);
    const count = Number(row.n);
    if (count === 0) continue;
    const [table = '', kind = '', state = '', priority = '1'] = name.split('|');
    if (table === 'jobs') totals.jobs.set(name, { kind, state: state as JobState, priority: Number(priority), count });
    else totals.tables.set(table, count);
  }
  return totals;
}

export const deadWindowStart = (now: number): number => now - DAY_MS;

export function statsFrom(totals: CounterTotals, probes: Row[], at: number): StoreStats {
  const byKindState = new Map<string, { kind: string; state: JobState; count: number }>();
  const pendingByPriority: StoreStats['pendingByPriority'] = [];
  const classes = Object.entries(JOB_PRIORITY) as Array<[PriorityClass, number]>;
  for (const entry of totals.jobs.values()) {
    const key = `${entry.kind}|${entry.state}`;
    const known = byKindState.get(key) ?? { kind: entry.kind, state: entry.state, count: 0 };
    known.count += entry.count;
    byKindState.set(key, known);
    const priority = classes.find(([, value]) => value === entry.priority)?.[0];
    if (entry.state === 'pending' && priority !== undefined) pendingByPriority.push({ kind: entry.kind, priority, count: entry.count });
  }
  const stats: StoreStats = {
    at,
    counts: [...byKindState.values()],
    oldestPending: [],
    deadLast24h: [],
    pendingByPriority,
    stored: {
      inboundMessages: totals.tables.get('inbound_messages') ?? 0,
      inboundEvents: totals.tables.get('inbound_events') ?? 0,
      jobs: [...totals.jobs.values()].reduce((sum, entry) => sum + entry.count, 0),
      attempts: totals.tables.get('attempts') ?? 0,
      oldestEventAt: null,
      oldestJobAt: null,
    },
  };
  for (const row of probes) {
    const kind = String(row.kind);
    const value = row.n === null || row.n === undefined ? null : Number(row.n);
    if (row.what === 'dead' && value !== null && value > 0) stats.deadLast24h.push({ kind, count: value });
    else if (row.what === 'oldest' && value !== null) stats.oldestPending.push({ kind, createdAt: value, ageMs: Math.max(0, at - value) });
    else if (row.what === 'oldestEvent') stats.stored.oldestEventAt = value;
    else if (row.what === 'oldestJob') stats.stored.oldestJobAt = value;
  }
  const byKind = (a: { kind: string; state?: string }, b: { kind: string; state?: string }) =>
    a.kind.localeCompare(b.kind) || (a.state ?? '').localeCompare(b.state ?? '');
  stats.counts.sort(byKind);
  stats.oldestPending.sort(byKind);
  stats.deadLast24h.sort(byKind);
  stats.pendingByPriority.sort((a, b) => JOB_PRIORITY[a.priority] - JOB_PRIORITY[b.priority] || a.kind.localeCompare(b.kind));
  return stats;
}
