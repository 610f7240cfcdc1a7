import type { Config } from './core/config.ts';
import type { HealthRegistry } from './core/health-registry.ts';
import type { Logger } from './core/logger.ts';

/**
 * What the start log says of each integration: one line each, on or off and why, read from the
 * same declarations GET /admin/health answers with (src/integration-health.ts), so the log, the
 * health answer and a route's 503 name the same settings.
 */

/** The lines: `Google Calendar: off (set GOOGLE_SERVICE_ACCOUNT_KEY_FILE or …)`, in the order declared, then the admin API. */
export function integrationLines(registry: HealthRegistry, config: Pick<Config, 'ADMIN_API_KEYS'>): Array<{ name: string; line: string }> {
  const lines = registry.list().map(({ name, label, on, enableWith, detail }) => {
    const why = on ? detail : [enableWith === undefined ? undefined : `set ${enableWith}`, detail].filter(Boolean).join('; ');
    return { name: String(name), line: `${label}: ${on ? 'on' : 'off'}${why ? ` (${why})` : ''}` };
  });
  const keys = config.ADMIN_API_KEYS.length;
  lines.push({ name: 'admin', line: keys > 0 ? `Admin API: on (${keys} key${keys === 1 ? '' : 's'})` : 'Admin API: off (set ADMIN_API_KEYS)' });
  return lines;
}

/** One info line per integration, each tagged with its name. */
export function logIntegrationStates(logger: Logger, registry: HealthRegistry, config: Pick<Config, 'ADMIN_API_KEYS'>): void {
  for (const { name, line } of integrationLines(registry, config)) logger.info(line, { integration: name });
}
