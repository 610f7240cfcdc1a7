import { z } from 'zod';

import { parseCidr } from './cidr-allowlist.ts';
import { parseDuration } from './durations.ts';

/**
 * The single source of settings. Every entry carries a description and an example through
 * zod's `.meta()`: startup errors, `.env.example` and the settings table in docs/configuration.md read them.
 */

type Meta = { description: string; example: string; secret?: boolean };

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

const csv = (meta: Meta, item: z.ZodType<string, string> = z.string()) => z.string().default('').transform(list).pipe(z.array(item)).meta(meta);

const int = (fallback: number, min: number, max: number, meta: Meta) =>
  z.coerce
    .number({ error: 'expected a whole number' })
    .int('expected a whole number')
    .min(min, `expected at least ${min}`)
    .max(max, `expected at most ${max}`)
    .default(fallback)
    .meta(meta);

const bool = (meta: Meta) =>
  z
    .enum(['true', 'false', '1', '0', ''], { error: 'expected true or false' })
    .default('false')
    .transform((value) => value === 'true' || value === '1')
    .meta(meta);

const duration = (fallback: string, meta: Meta) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration such as 500ms, 10s, 15m or 2h' });
        return z.NEVER;
      }
      return ms;
    })
    .meta(meta);

const optionalText = (meta: Meta) =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === '' ? undefined : value))
    .meta(meta);

const httpUrl = () => z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).transform((value) => value.replace(/\/+$/, ''));
const url = (fallback: string, meta: Meta) => httpUrl().default(fallback).meta(meta);
const optionalUrl = (meta: Meta) => httpUrl().optional().meta(meta);

const salesforceOrgId = z.string().regex(/^00D[0-9A-Za-z]{12}([0-9A-Za-z]{3})?$/, 'expected a Salesforce organization id (00D…, 15 or 18 characters)');

const rateLimit = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      if (text === 'off') return undefined;
      const [count, window] = text.split('/');
      const requests = Number(count);
      const windowMs = window === undefined ? undefined : parseDuration(window);
      if (!Number.isInteger(requests) || requests < 1 || windowMs === undefined || windowMs < 1) {
        ctx.addIssue({ code: 'custom', message: 'expected <requests>/<window> such as 100/15m, or off' });
        return z.NEVER;
      }
      return { requests, windowMs };
    });

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

export const configSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'production', 'test'])
    .default('development')
    .meta({ description: 'production requires MOMENTUM_API_KEY; otherwise a missing key starts sandbox mode', example: 'production' }),
  PORT: int(8080, 0, 65_535, { description: 'TCP port the HTTP server listens on', example: '8080' }),
  HOST: z.string().min(1).default('0.0.0.0').meta({ description: 'Interface to listen on', example: '0.0.0.0' }),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']).default('info').meta({ description: 'winston log level', example: 'info' }),
  SHUTDOWN_TIMEOUT_MS: int(10_000, 0, 600_000, {
    description: 'On SIGTERM/SIGINT, how long in-flight requests and jobs may take before the process exits',
    example: '10000',
  }),

  DATABASE_URL: z
    .string()
    .default('sqlite:data/bridge.db')
    .refine((value) => /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(value), 'expected sqlite:<path>, sqlite::memory: or postgres://…')
    .meta({
      description: 'Store: sqlite:<path> (embedded, default) or postgres://user@host:5432/db (?schema=name picks a schema)',
      example: 'sqlite:data/bridge.db',
    }),
  DATABASE_POOL_MAX: int(10, 1, 200, { description: 'PostgreSQL connection pool size', example: '10' }),

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
  MOMENTUM_API_KEY: optionalText({
    description: 'Momentum API key (X-API-Key). Unset outside production → sandbox mode with a built-in receiver',
    example: 'mk_live_…',
    secret: true,
  }),
  MOMENTUM_TIMEOUT_MS: int(30_000, 100, 600_000, { description: 'Total timeout of one Momentum request', example: '30000' }),
  MOMENTUM_RATE_LIMIT: rateLimit('100/15m').meta({
    description: 'Pacing of Momentum calls per API key: <requests>/<window>, or off',
    example: '100/15m',
  }),
  RETRY_SCHEDULE: z
    .string()
    .default('0s,10s,1m,5m,30m,2h,6h,12h')
    .transform((text, ctx) => {
      const steps = list(text).map(parseDuration);
      if (steps.length === 0 || steps.some((step) => step === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'expected comma-separated durations such as 0s,10s,1m' });
        return z.NEVER;
      }
      return steps as number[];
    })
    .meta({ description: 'Delay before each attempt (±20 % jitter); after the last the delivery is dead', example: '0s,10s,1m,5m,30m,2h,6h,12h' }),
  WORKER_CONCURRENCY: int(4, 1, 256, { description: 'Jobs run at once by this process', example: '4' }),
  WORKER_PREFETCH: int(32, 0, 1_024, {
    description:
      'Most jobs claimed ahead of a free slot, never more than finished in the last 50 ms, so a busy worker batches claims with outcomes; 0 claims only for free slots',
    example: '32',
  }),
  WORKER_LEASE_MS: int(60_000, 1_000, 3_600_000, {
    description: "How long a claimed job stays leased without a heartbeat; a crashed process's jobs run again after it",
    example: '60000',
  }),

  ADMIN_API_KEYS: csv(
    { description: 'Comma-separated admin API keys (several for rotation); empty disables /admin', example: 'k1-long-random,k2-long-random', secret: true },
    z.string().min(16, 'each admin key needs at least 16 characters'),
  ),
  ADMIN_BULK_MAX: int(10_000, 1, 1_000_000, { description: 'Most deliveries one bulk replay may enqueue', example: '10000' }),

  SALESFORCE_ORG_IDS: csv(
    { description: 'Allowed Salesforce organization ids (15 or 18 characters, comma-separated)', example: '00D8d0000001XyZEAU' },
    salesforceOrgId,
  ),
  SALESFORCE_MAX_BODY: int(2 * 1024 * 1024, 1024, 64 * 1024 * 1024, {
    description: 'Largest Outbound Message body accepted, in bytes',
    example: '2097152',
  }),
  MAPPING_FILE: optionalText({ description: 'JSON mapping rules; built-in defaults when unset', example: 'deploy/mapping.example.json' }),
  REMAP_TRIGGER_SUMMARY: bool({ description: 'Default triggerSummary flag for remaps', example: 'false' }),
  REMAP_TRIGGER_AI_SIGNALS: bool({ description: 'Default triggerAiSignals flag for remaps', example: 'false' }),
  SALESFORCE_LOGIN_URL: url('https://login.salesforce.com', {
    description: 'Salesforce OAuth 2.0 login URL (My Domain URL for the client credentials flow)',
    example: 'https://login.salesforce.com',
  }),
  SALESFORCE_API_VERSION: z
    .string()
    .regex(/^\d+\.\d$/, 'expected a version such as 62.0')
    .default('62.0')
    .meta({ description: 'Salesforce REST API version for lookups', example: '62.0' }),
  SALESFORCE_CLIENT_ID: optionalText({ description: 'Connected app consumer key (JWT bearer or client credentials flow)', example: '3MVG9…' }),
  SALESFORCE_CLIENT_SECRET: optionalText({ description: 'Connected app consumer secret (client credentials flow)', example: 's3cr3t', secret: true }),
  SALESFORCE_USERNAME: optionalText({ description: 'Integration user for the JWT bearer flow', example: 'bridge@example.com' }),
  SALESFORCE_PRIVATE_KEY: optionalText({ description: 'PEM private key for the JWT bearer flow', example: '-----BEGIN PRIVATE KEY-----…', secret: true }),
  SALESFORCE_PRIVATE_KEY_FILE: optionalText({ description: 'Path of the PEM private key for the JWT bearer flow', example: '/run/secrets/sf-key.pem' }),
  SALESFORCE_LOOKUP_CACHE_TTL: duration('10m', { description: 'How long CRM lookups (owner email, attendee matches) are cached', example: '10m' }),

  // Google Calendar push channels and incremental sync (docs/protocols.md §3).
  GOOGLE_SERVICE_ACCOUNT_KEY_FILE: optionalText({
    description: 'Path of the Google service account JSON key (domain-wide delegation) used to read the watched calendars',
    example: '/run/secrets/google-sa.json',
  }),
  GOOGLE_SERVICE_ACCOUNT_KEY: optionalText({
    description: 'The Google service account JSON key itself, instead of GOOGLE_SERVICE_ACCOUNT_KEY_FILE',
    example: '{"type":"service_account","client_email":"bridge@project.iam.gserviceaccount.com","private_key":"-----BEGIN PRIVATE KEY-----…"}',
    secret: true,
  }),
  GOOGLE_CALENDAR_API_URL: url('https://www.googleapis.com/calendar/v3', {
    description: 'Google Calendar API base URL',
    example: 'https://www.googleapis.com/calendar/v3',
  }),
  GOOGLE_CALENDAR_IDS: csv(
    {
      description: 'Calendars to watch at start (owner emails, comma-separated); more can be added at run time',
      example: 'ana.rep@example.com,bo.rep@example.com',
    },
    z.email("each calendar id must be its owner's email address").transform((value) => value.toLowerCase()),
  ),
  PUBLIC_BASE_URL: optionalUrl({
    description: 'Public HTTPS base URL of this bridge; Google and Microsoft send notifications to it (required when calendars are watched)',
    example: 'https://bridge.example.com',
  }),
  GOOGLE_CHANNEL_TTL: duration('7d', { description: 'Requested lifetime of a Google push channel; renewed at 80 % of its life', example: '7d' }),
  GOOGLE_FULL_SYNC_DAYS: int(30, 0, 3650, { description: 'Full sync window: days back from now (first sync, or after 410 Gone)', example: '30' }),
  GOOGLE_FULL_SYNC_DAYS_AHEAD: int(90, 0, 3650, { description: 'Full sync window: days ahead of now', example: '90' }),
  GOOGLE_BACKSTOP_SYNC: duration('15m', { description: 'Periodic incremental sync of every channel, to catch dropped notifications', example: '15m' }),
  IMPORT_PROCESS_MEETINGS: z
    .enum(['true', 'false', '1', '0'], { error: 'expected true or false' })
    .default('true')
    .transform((value) => value === 'true' || value === '1')
    .meta({ description: 'processImportedMeeting on automatic imports (recordings); the mapping file may override it per source', example: 'true' }),

  // Zoom cloud recordings become imports (docs/protocols.md §8).
  ZOOM_WEBHOOK_SECRET_TOKENS: csv(
    {
      description: "Secret tokens of the Zoom app's event subscription, comma-separated for rotation; empty disables POST /recordings/zoom/events (503)",
      example: 'wJXs3cPfRuCtUB2r4Bq9Yw',
      secret: true,
    },
    z.string().min(8, 'each secret token must be at least 8 characters'),
  ),
  ZOOM_ACCOUNT_ID: optionalText({
    description: 'Zoom account id of the Server-to-Server OAuth app (reads meeting participants)',
    example: 'lAAAAAAAAAAAAAAAAAAAAA',
  }),
  ZOOM_CLIENT_ID: optionalText({ description: 'Client id of the Server-to-Server OAuth app', example: 'aBcDeFgHiJkLmNoPqRsTuV' }),
  ZOOM_CLIENT_SECRET: optionalText({ description: 'Client secret of the Server-to-Server OAuth app', example: 's3cr3t…', secret: true }),
  ZOOM_API_URL: url('https://api.zoom.us/v2', { description: 'Zoom API base URL', example: 'https://api.zoom.us/v2' }),
  ZOOM_OAUTH_URL: url('https://zoom.us/oauth/token', { description: "Zoom's OAuth token endpoint", example: 'https://zoom.us/oauth/token' }),
  ZOOM_MAX_BODY: int(262144, 1024, 16 * 1024 * 1024, { description: 'Largest Zoom event body accepted, in bytes', example: '262144' }),

  // Microsoft 365 calendars: Graph change notifications, delta sync, subscription upkeep (docs/protocols.md §7).
  MICROSOFT_TENANT_ID: optionalText({
    description: 'Azure AD (Entra ID) tenant id of the app registration; set with the client id to watch Outlook calendars',
    example: '8d3c2b1a-1111-2222-3333-444455556666',
  }),
  MICROSOFT_CLIENT_ID: optionalText({
    description: 'Application (client) id of the app registration with application permission Calendars.Read',
    example: '0f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff',
  }),
  MICROSOFT_CLIENT_SECRET: optionalText({
    description: 'Client secret of the app registration (or MICROSOFT_CLIENT_CERTIFICATE_FILE)',
    example: 'Abc8Q~…',
    secret: true,
  }),
  MICROSOFT_CLIENT_CERTIFICATE_FILE: optionalText({
    description: "Path of a PEM file holding the app registration's certificate and its private key, instead of MICROSOFT_CLIENT_SECRET",
    example: '/run/secrets/graph-app.pem',
  }),
  MICROSOFT_LOGIN_URL: url('https://login.microsoftonline.com', {
    description: "Microsoft identity platform base URL (a national cloud's, or a test server's); no other login host is called",
    example: 'https://login.microsoftonline.com',
  }),
  MICROSOFT_GRAPH_API_URL: url('https://graph.microsoft.com/v1.0', {
    description: 'Microsoft Graph base URL, version included',
    example: 'https://graph.microsoft.com/v1.0',
  }),
  MICROSOFT_CALENDAR_USERS: csv(
    {
      description: 'Mailboxes whose calendars are watched at start (UPNs or emails, comma-separated); more can be added at run time',
      example: 'ana.rep@example.com,bo.rep@example.com',
    },
    z.email('each mailbox must be a user principal name or email address').transform((value) => value.toLowerCase()),
  ),
  MICROSOFT_SUBSCRIPTION_TTL: duration('3d', {
    description: 'Requested lifetime of a Graph subscription (at most 10080 minutes); renewed at 80 % of its life',
    example: '3d',
  }),
  MICROSOFT_FULL_SYNC_DAYS: int(30, 0, 3650, { description: 'Full delta sync window: days back from now (first sync, or after 410 Gone)', example: '30' }),
  MICROSOFT_FULL_SYNC_DAYS_AHEAD: int(90, 0, 3650, { description: 'Full delta sync window: days ahead of now', example: '90' }),
  MICROSOFT_BACKSTOP_SYNC: duration('15m', { description: 'Periodic delta sync of every mailbox, to catch missed notifications', example: '15m' }),
  CALENDAR_WEBHOOK_SECRETS: csv(
    {
      description: 'Standard Webhooks secrets (whsec_ + base64) accepted on POST /calendar/events, comma-separated for rotation; empty disables the route',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      secret: true,
    },
    z.string().regex(/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/, 'each secret must be whsec_ followed by base64 (at least 12 bytes)'),
  ),
  CALENDAR_MAX_BODY: int(256 * 1024, 1024, 16 * 1024 * 1024, { description: 'Largest signed calendar event body accepted, in bytes', example: '262144' }),
  INTERNAL_EMAIL_DOMAINS: csv(
    { description: 'Email domains of the company itself: their attendees never drive CRM matching (comma-separated)', example: 'example.com,example.co.uk' },
    z
      .string()
      .regex(/^[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/, 'expected a domain such as example.com')
      .transform((value) => value.toLowerCase()),
  ),
  // Metrics and abuse protection.
  METRICS_TOKEN: optionalText({
    description: 'When set, GET /metrics requires Authorization: Bearer <token> (401 without it)',
    example: 'a-long-random-scrape-token',
    secret: true,
  }),
  TRUST_PROXY: trustProxy.meta({
    description:
      'express trust proxy: false (default; the client is the TCP peer), true (trust any X-Forwarded-For: only when nothing reaches the bridge except through the proxy), a number of proxy hops, or comma-separated proxy addresses/CIDRs',
    example: '10.0.0.0/8',
  }),
  SALESFORCE_ALLOWED_CIDRS: csv(
    {
      description:
        'When set, only these client addresses (IPv4/IPv6 CIDRs, comma-separated; the address as TRUST_PROXY computes it) may post Outbound Messages; others get 403',
      example: '13.108.0.0/14,96.43.144.0/20',
    },
    z.string().refine((entry) => parseCidr(entry) !== undefined, 'each entry must be an IPv4 or IPv6 address or CIDR such as 13.108.0.0/14'),
  ),
  INBOUND_RATE_LIMIT: rateLimit('600/1m').meta({
    description: 'Requests per client address on /salesforce/*, /calendar/* and /recordings/*: <requests>/<window>, or off; past it 429 with Retry-After',
    example: '600/1m',
  }),
  ADMIN_AUTH_FAILURE_LIMIT: rateLimit('20/15m').meta({
    description: 'Failed admin (and metrics token) authentications per client address: <requests>/<window>, or off; past it 429 with Retry-After',
    example: '20/15m',
  }),
  HEADERS_TIMEOUT_MS: int(15_000, 100, 600_000, {
    description: 'A client must send all request headers within this time or the connection is closed (slow-loris defence)',
    example: '15000',
  }),
  REQUEST_TIMEOUT_MS: int(60_000, 100, 3_600_000, {
    description: 'A client must send the whole request (headers and body) within this time; at least HEADERS_TIMEOUT_MS',
    example: '60000',
  }),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function settingMeta(name: string): Meta | undefined {
  const shape = configSchema.shape as Record<string, z.ZodType>;
  return shape[name]?.meta() as Meta | undefined;
}

export function settingNames(): string[] {
  return Object.keys(configSchema.shape);
}

/** Parses an environment; throws ConfigError with one line per problem. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      const example = settingMeta(name)?.example;
      const got = env[name] === undefined ? 'it is not set' : `got ${JSON.stringify(env[name])}`;
      return `${name}: ${issue.message}; ${got}${example ? ` (example: ${name}=${example})` : ''}`;
    });
    throw new ConfigError(problems);
  }
  const config = result.data;
  // Node refuses a headers timeout longer than the whole-request timeout.
  if (config.HEADERS_TIMEOUT_MS > config.REQUEST_TIMEOUT_MS) {
    throw new ConfigError([`REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS (${config.HEADERS_TIMEOUT_MS}); got ${config.REQUEST_TIMEOUT_MS}`]);
  }
  if (config.NODE_ENV === 'production' && config.MOMENTUM_API_KEY === undefined) {
    throw new ConfigError([
      `MOMENTUM_API_KEY: required when NODE_ENV=production; it is not set (example: MOMENTUM_API_KEY=${settingMeta('MOMENTUM_API_KEY')?.example})`,
    ]);
  }
  return config;
}

/** Reads `.env` when present (Node's own loader, no dotenv), then parses process.env. */
export function loadConfig(envFile = '.env'): Config {
  try {
    process.loadEnvFile(envFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return parseConfig(process.env);
}

/**
 * Values that must never reach a log line: every setting the schema marks `secret`, each value of
 * a list on its own, and the private half of a Google key (an error may quote it alone).
 */
export function secretValues(config: Config): string[] {
  const values = settingNames()
    .filter((name) => settingMeta(name)?.secret === true)
    .flatMap((name): unknown[] => {
      const value: unknown = config[name as keyof Config];
      return Array.isArray(value) ? value : [value];
    });
  values.push(googlePrivateKey(config.GOOGLE_SERVICE_ACCOUNT_KEY));
  return values.filter((value): value is string => typeof value === 'string' && value.length >= 4);
}

function googlePrivateKey(json: string | undefined): string | undefined {
  if (json === undefined) return undefined;
  try {
    const key = (JSON.parse(json) as { private_key?: unknown }).private_key;
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}
