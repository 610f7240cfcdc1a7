import { z } from 'zod';

import { adminSettings } from './admin/settings.ts';
import { calendarSettings } from './calendar/settings.ts';
import { type Config, ConfigError } from './core/config.ts';
import type { Meta } from './core/setting-kinds.ts';
import { givenValue } from './core/setting-problems.ts';
import { coreSettings } from './core/settings.ts';
import { googleSettings } from './google/settings.ts';
import { httpSettingProblems, httpSettings } from './http/settings.ts';
import { jobsSettings } from './jobs/settings.ts';
import { mappingSettings } from './mapping/settings.ts';
import { metricsSettings } from './metrics/settings.ts';
import { microsoftSettings } from './microsoft/settings.ts';
import { momentumSettingProblems, momentumSettings } from './momentum/settings.ts';
import { pubsubSettingProblems, pubsubSettings } from './salesforce/pubsub/settings.ts';
import { salesforceSettings } from './salesforce/settings.ts';
import { storeSettings } from './store/settings.ts';
import { zoomSettings } from './zoom/settings.ts';

export { type Config, ConfigError } from './core/config.ts';

/**
 * Every setting of the bridge: each folder's own (src/<folder>/settings.ts), composed in the
 * order docs/configuration.md and .env.example list them. Checks that span settings run after
 * the schema, each from the folder whose settings it is about.
 */
export const configSchema = z.object({
  ...coreSettings,
  ...httpSettings,
  ...storeSettings,
  ...jobsSettings,
  ...momentumSettings,
  ...mappingSettings,
  ...adminSettings,
  ...metricsSettings,
  ...salesforceSettings,
  ...pubsubSettings,
  ...calendarSettings,
  ...googleSettings,
  ...microsoftSettings,
  ...zoomSettings,
});

const crossChecks: Array<(config: Config) => string[]> = [httpSettingProblems, momentumSettingProblems, pubsubSettingProblems];

// The interface every file reads (core/config.ts, merged from each folder) and the composed
// schema must name the same settings: a folder composed here but not merged there, or the other
// way round, fails the type check.
type Composed = z.infer<typeof configSchema>;
type SameNames = [keyof Composed] extends [keyof Config] ? ([keyof Config] extends [keyof Composed] ? true : false) : false;
const sameNames: SameNames = true;
void sameNames;

export function settingMeta(name: string): Meta | undefined {
  const shape = configSchema.shape as Record<string, z.ZodType>;
  return shape[name]?.meta() as Meta | undefined;
}

export function settingNames(): string[] {
  return Object.keys(configSchema.shape);
}

/** Parses an environment; throws ConfigError with one line per problem (a secret's value never in it). */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      const meta = settingMeta(name);
      const entry = typeof issue.path[1] === 'number' ? issue.path[1] : undefined;
      const given = givenValue(env[name], { secret: meta?.secret === true, ...(entry === undefined ? {} : { entry }) });
      return `${name}: ${issue.message}; ${given}${meta?.example ? ` (example: ${name}=${meta.example})` : ''}`;
    });
    throw new ConfigError(problems);
  }
  const config: Config = result.data;
  const problems = crossChecks.flatMap((check) => check(config));
  if (problems.length > 0) throw new ConfigError(problems);
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
 * a list on its own, the private half of a Google key (an error may quote it alone) and the
 * password inside DATABASE_URL.
 */
export function secretValues(config: Config): string[] {
  const values = settingNames()
    .filter((name) => settingMeta(name)?.secret === true)
    .flatMap((name): unknown[] => {
      const value: unknown = config[name as keyof Config];
      return Array.isArray(value) ? value : [value];
    });
  values.push(googlePrivateKey(config.GOOGLE_SERVICE_ACCOUNT_KEY), ...databasePassword(config.DATABASE_URL));
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

/** As written in the URL (a log line may quote the URL) and as sent (an error may quote it decoded). */
function databasePassword(url: string): string[] {
  if (!url.startsWith('postgres')) return [];
  try {
    const password = new URL(url).password;
    return password === '' ? [] : [...new Set([password, decodeURIComponent(password)])];
  } catch {
    return [];
  }
}
