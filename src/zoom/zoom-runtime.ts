import { type Config, ConfigError } from '../core/config.ts';
import { createZoomClient, type ZoomClient } from './zoom-client.ts';

export type ZoomSettings = Pick<
  Config,
  'ZOOM_ACCOUNT_ID' | 'ZOOM_CLIENT_ID' | 'ZOOM_CLIENT_SECRET' | 'ZOOM_API_URL' | 'ZOOM_OAUTH_URL' | 'ZOOM_WEBHOOK_SECRET_TOKENS'
>;

/**
 * Zoom's API client from the settings, or undefined when the Server-to-Server OAuth app is not
 * configured (recordings are then imported without attendees). Half-set credentials stop the
 * start naming what is missing.
 */
export function createZoomApi(config: ZoomSettings): ZoomClient | undefined {
  const parts = { ZOOM_ACCOUNT_ID: config.ZOOM_ACCOUNT_ID, ZOOM_CLIENT_ID: config.ZOOM_CLIENT_ID, ZOOM_CLIENT_SECRET: config.ZOOM_CLIENT_SECRET };
  const missing = Object.entries(parts)
    .filter(([, value]) => value === undefined)
    .map(([name]) => name);
  // Off says so once, in the start's line per integration (src/integration-states.ts).
  if (missing.length === 3) return undefined;
  if (missing.length > 0) throw new ConfigError(missing.map((name) => `${name}: required with the other ZOOM_* API credentials; it is not set`));
  return createZoomClient({
    apiUrl: config.ZOOM_API_URL,
    oauthUrl: config.ZOOM_OAUTH_URL,
    accountId: config.ZOOM_ACCOUNT_ID!,
    clientId: config.ZOOM_CLIENT_ID!,
    clientSecret: config.ZOOM_CLIENT_SECRET!,
  });
}
