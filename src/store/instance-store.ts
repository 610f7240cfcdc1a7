import { num } from './row-mappers.ts';
import type { SqlRunner } from './sql-channel-store.ts';

/**
 * The bridge processes on this database, each as it last said it was alive (migration 16). Every
 * instance writes its own row on a timer; the admin's health answer lists those seen lately.
 */
export interface InstanceBeat {
  /** One per process (host, pid and a random part): a restart is a new instance. */
  id: string;
  host: string;
  pid: number;
  /** The package version the process runs: a rolling upgrade shows both. */
  version: string;
  startedAt: number;
}

export interface SeenInstance extends InstanceBeat {
  seenAt: number;
}

export interface InstanceStore {
  /** This instance is alive at `now`; rows not seen since `forgetBefore` are removed in passing. */
  beat(instance: InstanceBeat, now: number, forgetBefore: number): Promise<void>;
  /** Instances seen at `since` or later, most recently started first. */
  seenSince(since: number): Promise<SeenInstance[]>;
  /** A graceful stop: this instance is gone now, not in a few minutes. */
  forget(id: string): Promise<void>;
}

export function createSqlInstanceStore(runner: SqlRunner): InstanceStore {
  const q = (sql: string, params: readonly unknown[] = []) => runner.query(sql, params);
  return {
    async beat(instance, now, forgetBefore) {
      await q(
        `INSERT INTO instances (id, host, pid, version, started_at, seen_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`,
        [instance.id, instance.host, instance.pid, instance.version, instance.startedAt, now],
      );
      await q(`DELETE FROM instances WHERE seen_at < $1`, [forgetBefore]);
    },
    async seenSince(since) {
      const rows = await q(`SELECT * FROM instances WHERE seen_at >= $1 ORDER BY started_at DESC, id`, [since]);
      return rows.map((row) => ({
        id: String(row.id),
        host: String(row.host),
        pid: num(row.pid),
        version: String(row.version),
        startedAt: num(row.started_at),
        seenAt: num(row.seen_at),
      }));
    },
    async forget(id) {
      await q(`DELETE FROM instances WHERE id = $1`, [id]);
    },
  };
}
