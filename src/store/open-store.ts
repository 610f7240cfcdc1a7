import winston from 'winston';

import { ConfigError } from '../core/config.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { storeOpenProblem } from './open-failure.ts';
import { openPostgresStore } from './postgres/store.ts';
import { openSqliteStore } from './sqlite/store.ts';
import type { Store } from './types.ts';

export interface OpenStoreOptions {
  /** PostgreSQL pool size (DATABASE_POOL_MAX). */
  poolMax?: number;
  /** PostgreSQL: the admin reads' own pool size (DATABASE_ADMIN_POOL_MAX). */
  adminPoolMax?: number;
  /** How long an admin read may take (ADMIN_READ_TIMEOUT, in ms). */
  adminReadTimeoutMs?: number;
  /** PostgreSQL only: create and use this schema (tests isolate themselves this way). */
  schema?: string;
  logger?: Logger;
}

/**
 * Opens the engine named by the URL and applies pending migrations before resolving, so a store
 * returned here is ready to use (calling `migrate()` again is harmless).
 * - `sqlite:<path>` (directory created), `sqlite::memory:`
 * - `postgres://…` / `postgresql://…`; `?schema=name` selects the schema (the `schema` option wins)
 * A database out of reach (refused, unknown database or role, a file that cannot be written)
 * fails as a ConfigError naming DATABASE_URL and what is wrong, in one line (open-failure.ts).
 */
export async function openStore(databaseUrl: string, options: OpenStoreOptions = {}): Promise<Store> {
  try {
    return await openEngine(databaseUrl, options);
  } catch (error) {
    const problem = storeOpenProblem(error, databaseUrl);
    throw problem === undefined ? error : new ConfigError([problem], { cause: error });
  }
}

async function openEngine(databaseUrl: string, options: OpenStoreOptions): Promise<Store> {
  const logger = options.logger ?? winston.createLogger({ silent: true });
  if (databaseUrl.startsWith('sqlite:')) {
    const location = databaseUrl.slice('sqlite:'.length);
    if (location === '') throw new AppError('invalid_database_url', 'sqlite: needs a path or :memory:');
    return openSqliteStore(location, logger, { adminReadTimeoutMs: options.adminReadTimeoutMs });
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const { url, schema: urlSchema } = splitSchemaParameter(databaseUrl);
    const schema = options.schema ?? urlSchema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new AppError('invalid_schema', 'schema must be a lower-case SQL identifier');
    }
    const { adminPoolMax, adminReadTimeoutMs } = options;
    return openPostgresStore(url, { poolMax: options.poolMax ?? 10, adminPoolMax, adminReadTimeoutMs, schema, logger });
  }
  throw new AppError('invalid_database_url', 'expected sqlite:<path>, sqlite::memory: or postgres://…');
}

/**
 * `?schema=` is ours, not libpq's: it lets DATABASE_URL alone put a process in its own schema (the
 * reliability suite runs the real server that way). It is taken out before pg sees the URL.
 */
function splitSchemaParameter(databaseUrl: string): { url: string; schema?: string } {
  if (!/[?&]schema=/.test(databaseUrl)) return { url: databaseUrl };
  const parsed = new URL(databaseUrl);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), ...(schema === undefined || schema === '' ? {} : { schema }) };
}
