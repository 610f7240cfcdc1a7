import type { Config } from './core/config.ts';
import type { HealthRegistry } from './core/health-registry.ts';

/** What the start decided for the integrations whose on/off is more than one setting. */
export interface StartedIntegrations {
  sandbox: boolean;
  lookups: boolean;
  /** The Pub/Sub subscriber runs (SALESFORCE_PUBSUB=on, with the lookups' credentials). */
  pubsub: boolean;
  google: boolean;
  microsoft: boolean;
  zoomApi: boolean;
}

/**
 * Declares every integration with what its settings made of it, in the order GET /admin/health
 * lists them. The on/off of each is the start's own decision (a runtime made or not), not a second
 * reading of the settings that could disagree with it.
 */
export function declareIntegrations(registry: HealthRegistry, config: Config, started: StartedIntegrations): void {
  registry.declare('salesforce-outbound', {
    label: 'Salesforce Outbound Messages',
    on: config.SALESFORCE_ORG_IDS.length > 0,
    enableWith: 'SALESFORCE_ORG_IDS',
  });
  registry.declare('salesforce-lookups', {
    label: 'Salesforce lookups',
    on: started.lookups,
    enableWith:
      'SALESFORCE_CLIENT_ID with SALESFORCE_CLIENT_SECRET (client credentials), or with SALESFORCE_USERNAME and SALESFORCE_PRIVATE_KEY or SALESFORCE_PRIVATE_KEY_FILE (JWT bearer)',
  });
  registry.declare('salesforce-pubsub', {
    label: 'Salesforce Pub/Sub (Change Data Capture)',
    on: started.pubsub,
    enableWith: 'SALESFORCE_PUBSUB=on with the Salesforce lookup credentials',
  });
  registry.declare('google', {
    label: 'Google Calendar',
    on: started.google,
    enableWith: 'GOOGLE_SERVICE_ACCOUNT_KEY_FILE or GOOGLE_SERVICE_ACCOUNT_KEY, with PUBLIC_BASE_URL',
  });
  registry.declare('microsoft', {
    label: 'Microsoft 365',
    on: started.microsoft,
    enableWith: 'MICROSOFT_TENANT_ID, MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET or MICROSOFT_CLIENT_CERTIFICATE_FILE, with PUBLIC_BASE_URL',
  });
  const zoomEvents = config.ZOOM_WEBHOOK_SECRET_TOKENS.length > 0;
  registry.declare('zoom', {
    label: 'Zoom recordings',
    on: zoomEvents || started.zoomApi,
    enableWith: 'ZOOM_WEBHOOK_SECRET_TOKENS (events), ZOOM_ACCOUNT_ID, ZOOM_CLIENT_ID and ZOOM_CLIENT_SECRET (participants)',
    ...(zoomEvents && !started.zoomApi ? { detail: 'participants API off: recordings are imported without attendees' } : {}),
    ...(!zoomEvents && started.zoomApi ? { detail: 'events off: POST /recordings/zoom/events answers 503' } : {}),
  });
  registry.declare('signed-events', {
    label: 'Signed calendar and recording events',
    on: config.CALENDAR_WEBHOOK_SECRETS.length > 0,
    enableWith: 'CALENDAR_WEBHOOK_SECRETS',
  });
  registry.declare('momentum', {
    label: 'Momentum',
    on: true,
    ...(started.sandbox ? { detail: 'SANDBOX: MOMENTUM_API_KEY is not set; remaps and imports go to a built-in local receiver and are only logged' } : {}),
  });
}
