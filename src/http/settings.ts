import { z } from 'zod';

import { parseCidr } from '../core/cidr-allowlist.ts';
import type { Config } from '../core/config.ts';
import { int, list, optionalUrl, rateLimit, type SettingsOf } from '../core/setting-kinds.ts';

// express `trust proxy`: true, false, a number of hops, or a list of addresses, CIDRs and the
// names proxy-addr knows. Checked here so a typo stops the start instead of trusting nothing.
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const trustProxy = z
  .string()
  .default('false')
  .transform((text, ctx): boolean | number | string[] => {
    const value = text.trim();
    if (value === 'true' || value === 'false' || value === '') return value === 'true';
    if (/^\d+$/.test(value)) return Number(value);
    const entries = list(value);
    const bad = entries.filter((entry) => !PROXY_NAMES.has(entry) && parseCidr(entry) === undefined);
    if (entries.length === 0 || bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `expected true, false, a number of hops, or addresses/CIDRs (loopback, 10.0.0.0/8…); not understood: ${bad.join(', ') || '(empty)'}`,
      });
      return z.NEVER;
    }
    return entries;
  });

/** The HTTP server: where it listens, who it trusts, how long a client may take, how often it may call. */
export const httpSettings = {
  PORT: int(8080, 0, 65_535, { description: 'TCP port the HTTP server listens on', example: '8080' }),
  HOST: z.string().min(1).default('0.0.0.0').meta({ description: 'Interface to listen on', example: '0.0.0.0' }),
  PUBLIC_BASE_URL: optionalUrl({
    description: 'Public HTTPS base URL of this bridge; Google and Microsoft send notifications to it (required when calendars are watched)',
    example: 'https://bridge.example.com',
  }),
  TRUST_PROXY: trustProxy.meta({
    description:
      'express trust proxy: false (default; the client is the TCP peer), true (trust any X-Forwarded-For: only when nothing reaches the bridge except through the proxy), a number of proxy hops, or comma-separated proxy addresses/CIDRs',
    example: '10.0.0.0/8',
  }),
  INBOUND_RATE_LIMIT: rateLimit('600/1m', {
    description: 'Requests per client address on /salesforce/*, /calendar/* and /recordings/*: <requests>/<window>, or off; past it 429 with Retry-After',
    example: '600/1m',
  }),
  HEADERS_TIMEOUT_MS: int(15_000, 100, 600_000, {
    description: 'A client must send all request headers within this time or the connection is closed (slow-loris defence)',
    example: '15000',
  }),
  REQUEST_TIMEOUT_MS: int(60_000, 100, 3_600_000, {
    description: 'A client must send the whole request (headers and body) within this time; at least HEADERS_TIMEOUT_MS',
    example: '60000',
  }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof httpSettings> {}
}

/** Node refuses a headers timeout longer than the whole-request timeout. */
export function httpSettingProblems(config: Config): string[] {
  return config.HEADERS_TIMEOUT_MS > config.REQUEST_TIMEOUT_MS
    ? [`REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS (${config.HEADERS_TIMEOUT_MS}); got ${config.REQUEST_TIMEOUT_MS}`]
    : [];
}
