import { z } from 'zod';

import type { Config } from '../core/config.ts';
import { parseDuration } from '../core/durations.ts';
import { duration, int, rateLimit, secretToken, type SettingsOf, url } from '../core/setting-kinds.ts';

/** Where Momentum is, the key the bridge calls it with, and how fast it may call. */
export const momentumSettings = {
  MOMENTUM_API_BASE_URL: url('https://api.momentum.io', { description: 'Momentum API base (remap endpoint)', example: 'https://api.momentum.io' }),
  MOMENTUM_RECEIVER_URL: url('https://receiver.momentum.io', {
    description: 'Momentum receiver base (import endpoint)',
    example: 'https://receiver.momentum.io',
  }),
  MOMENTUM_IMPORT_PATH: z
    .string()
    .regex(/^\//, 'expected a path starting with /')
    .default('/user-provided-meeting')
    .meta({ description: 'Path of the import endpoint on MOMENTUM_RECEIVER_URL', example: '/user-provided-meeting' }),
  MOMENTUM_API_KEY: secretToken({
    description: 'Momentum API key (X-API-Key). Unset outside production → sandbox mode with a built-in receiver',
    example: 'mk_live_…',
  }),
  MOMENTUM_TIMEOUT_MS: int(30_000, 100, 600_000, { description: 'Total timeout of one Momentum request', example: '30000' }),
  MOMENTUM_RATE_LIMIT: rateLimit('100/15m', {
    description: 'Pacing of Momentum calls per API key: <requests>/<window>, or off',
    example: '100/15m',
  }),
  MOMENTUM_READBACK: z
    .enum(['on', 'off', ''], { error: 'expected on or off' })
    .optional()
    .transform((value) => (value === 'on' ? true : value === 'off' ? false : undefined))
    .meta({
      description: 'Read back what Momentum holds after each remap it accepted: on or off; unset, on when MOMENTUM_API_KEY is set (off in sandbox mode)',
      example: 'on',
    }),
  MOMENTUM_READBACK_DELAY: duration('2m', {
    description: 'How long after a remap succeeds its meeting is read back (remaps are applied asynchronously)',
    example: '2m',
  }),
  MOMENTUM_RECONCILE_INTERVAL: z
    .string()
    .default('off')
    .transform((text, ctx) => {
      if (text === 'off') return undefined;
      const ms = parseDuration(text);
      if (ms === undefined || ms < 60_000) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration of at least 1m such as 6h, or off' });
        return z.NEVER;
      }
      return ms;
    })
    .meta({
      description: "How often to list Momentum's meetings of the re-match window and match those the bridge never saw an event for: a duration, or off",
      example: '6h',
    }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof momentumSettings> {}
}

/** Sandbox mode (a built-in receiver instead of Momentum) is for development only. */
export function momentumSettingProblems(config: Config): string[] {
  if (config.NODE_ENV !== 'production' || config.MOMENTUM_API_KEY !== undefined) return [];
  const example = momentumSettings.MOMENTUM_API_KEY.meta()?.example;
  return [`MOMENTUM_API_KEY: required when NODE_ENV=production; it is not set (example: MOMENTUM_API_KEY=${example})`];
}
