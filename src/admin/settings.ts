import { z } from 'zod';

import { csv, int, rateLimit, type SettingsOf } from '../core/setting-kinds.ts';

/** Who may use /admin, how much one bulk replay may do, and how many failed sign-ins a client gets. */
export const adminSettings = {
  ADMIN_API_KEYS: csv(
    { description: 'Comma-separated admin API keys (several for rotation); empty disables /admin', example: 'k1-long-random,k2-long-random', secret: true },
    z.string().min(16, 'each admin key needs at least 16 characters'),
  ),
  ADMIN_BULK_MAX: int(10_000, 1, 1_000_000, { description: 'Most deliveries one bulk replay may enqueue', example: '10000' }),
  ADMIN_AUTH_FAILURE_LIMIT: rateLimit('20/15m', {
    description: 'Failed admin (and metrics token) authentications per client address: <requests>/<window>, or off; past it 429 with Retry-After',
    example: '20/15m',
  }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof adminSettings> {}
}
