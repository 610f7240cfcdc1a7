import { z } from 'zod';

import { formatDuration } from '../core/durations.ts';
import { duration, int, type SettingsOf } from '../core/setting-kinds.ts';

/** The admin read limits a store opened without settings (tests, benchmarks) uses: the settings' defaults. */
export const ADMIN_READ_DEFAULTS = { timeoutMs: 5_000, poolMax: 2 } as const;

/** Which database holds the bridge's state, and how far admin reads may reach into it. */
export const storeSettings = {
  DATABASE_URL: z
    .string()
    .default('sqlite:data/bridge.db')
    .refine((value) => /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(value), 'expected sqlite:<path>, sqlite::memory: or postgres://…')
    .meta({
      description: 'Store: sqlite:<path> (embedded, default) or postgres://user@host:5432/db (?schema=name picks a schema)',
      example: 'sqlite:data/bridge.db',
    }),
  DATABASE_POOL_MAX: int(10, 1, 200, { description: 'PostgreSQL connection pool size', example: '10' }),
  DATABASE_ADMIN_POOL_MAX: int(ADMIN_READ_DEFAULTS.poolMax, 1, 50, {
    description: 'PostgreSQL: size of the pool admin reads (admin API, metrics) use, apart from DATABASE_POOL_MAX so they never hold a connection an ack needs',
    example: '2',
  }),
  ADMIN_READ_TIMEOUT: duration(formatDuration(ADMIN_READ_DEFAULTS.timeoutMs), {
    description:
      'Longest an admin read (a search, a list, the stats) may run, and may wait for a read connection; past it the read is stopped and answered 503 (admin_read_timeout; admin_reads_busy if it never started)',
    example: '5s',
  }).refine((ms) => ms >= 100, 'expected at least 100ms'),
  // Whole days, so at least one: a sender's retries of a message (minutes to a day) still find its dedupe key.
  RETENTION_DAYS: int(90, 0, 36_500, {
    description:
      'Days inbound messages, events, attempts and ended jobs are kept; older ones are removed hourly in small batches, except what a meeting still needs (docs/operations.md, retention); 0 keeps everything',
    example: '90',
  }),
  // A year by default: a recording record edited months later must still find its import ("imported once").
  RETENTION_MEETING_DAYS: int(365, 0, 36_500, {
    description:
      "Days a meeting's kept state (its newest event, last delivery, newest match and source record) outlives its last change; then it goes too, so the disk stays flat (docs/operations.md, retention); at least RETENTION_DAYS; 0 keeps it whatever its age",
    example: '365',
  }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof storeSettings> {}
}
