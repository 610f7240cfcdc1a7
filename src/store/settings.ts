import { z } from 'zod';

import { int, type SettingsOf } from '../core/setting-kinds.ts';

/** Which database holds the bridge's state. */
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
  // Whole days, so at least one: a sender's retries of a message (minutes to a day) still find its dedupe key.
  RETENTION_DAYS: int(90, 0, 36_500, {
    description:
      'Days inbound messages, events, attempts and ended jobs are kept; older ones are removed hourly in small batches, except what a meeting still needs (docs/operations.md, retention); 0 keeps everything',
    example: '90',
  }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof storeSettings> {}
}
