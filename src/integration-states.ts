import type { Config } from './core/config.ts';
import type { Logger } from './core/logger.ts';

/**
 * What the start log says of each integration: one line each, on or off and why, naming the
 * settings that turn an off one on (docs/configuration.md). A route whose integration is off
 * answers 503 naming the same setting, so the log and the refusal agree.
 */

export interface IntegrationState {
  name: string;
  state: 'on' | 'off' | 'sandbox';
  /** Why, for an off one: the settings to set. What it runs with, for an on one. */
  detail?: string;
}

/** What started, beyond the settings: watchers made by the job runtime. */
export interface RunningIntegrations {
  google: boolean;
  microsoft: boolean;
  /** Remaps go to the built-in sandbox receiver (no MOMENTUM_API_KEY outside production). */
  sandbox: boolean;
}

const on = (name: string, detail?: string): IntegrationState => ({ name, state: 'on', ...(detail === undefined ? {} : { detail }) });
const off = (name: string, detail: string): IntegrationState => ({ name, state: 'off', detail });

export function integrationStates(config: Config, running: RunningIntegrations): IntegrationState[] {
  const orgs = config.SALESFORCE_ORG_IDS.length;
  const zoomApi = config.ZOOM_ACCOUNT_ID !== undefined;
  const adminKeys = config.ADMIN_API_KEYS.length;
  return [
    orgs > 0 ? on('salesforce outbound messages', `${orgs} org id${orgs === 1 ? '' : 's'}`) : off('salesforce outbound messages', 'set SALESFORCE_ORG_IDS'),
    config.SALESFORCE_CLIENT_ID !== undefined
      ? on('salesforce lookups')
      : off('salesforce lookups', 'set SALESFORCE_CLIENT_ID with SALESFORCE_CLIENT_SECRET, or with SALESFORCE_USERNAME and SALESFORCE_PRIVATE_KEY'),
    running.google
      ? on('google calendar', `${config.GOOGLE_CALENDAR_IDS.length} calendars at start`)
      : off('google calendar', 'set GOOGLE_SERVICE_ACCOUNT_KEY or GOOGLE_SERVICE_ACCOUNT_KEY_FILE'),
    running.microsoft
      ? on('microsoft 365 calendars', `${config.MICROSOFT_CALENDAR_USERS.length} mailboxes at start`)
      : off('microsoft 365 calendars', 'set MICROSOFT_TENANT_ID and MICROSOFT_CLIENT_ID'),
    config.CALENDAR_WEBHOOK_SECRETS.length > 0 ? on('signed calendar events') : off('signed calendar events', 'set CALENDAR_WEBHOOK_SECRETS'),
    config.ZOOM_WEBHOOK_SECRET_TOKENS.length === 0
      ? off('zoom recordings', 'set ZOOM_WEBHOOK_SECRET_TOKENS')
      : on('zoom recordings', zoomApi ? 'participants read from Zoom' : 'without attendees: set ZOOM_ACCOUNT_ID, ZOOM_CLIENT_ID, ZOOM_CLIENT_SECRET'),
    running.sandbox ? { name: 'momentum', state: 'sandbox', detail: 'set MOMENTUM_API_KEY' } : on('momentum', new URL(config.MOMENTUM_API_BASE_URL).host),
    adminKeys > 0 ? on('admin API', `${adminKeys} key${adminKeys === 1 ? '' : 's'}`) : off('admin API', 'set ADMIN_API_KEYS'),
  ];
}

/** One info line per integration: `google calendar: off (set GOOGLE_SERVICE_ACCOUNT_KEY or …)`. */
export function logIntegrationStates(logger: Logger, states: readonly IntegrationState[]): void {
  for (const { name, state, detail } of states) {
    logger.info(`${name}: ${state}${detail === undefined ? '' : ` (${detail})`}`, { integration: name, state });
  }
}
