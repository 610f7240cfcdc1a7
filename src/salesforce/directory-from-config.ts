import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { salesforceAuthFromConfig, type SalesforceAuthSettings } from './auth-from-config.ts';
import type { SalesforceDirectory } from './directory.ts';
import { createSalesforceApi } from './jsforce-connection.ts';
import { createJsforceDirectory } from './jsforce-directory.ts';

export type DirectorySettings = SalesforceAuthSettings & Pick<Config, 'SALESFORCE_API_VERSION' | 'SALESFORCE_LOOKUP_CACHE_TTL'>;

/**
 * The Salesforce directory the settings call for, or undefined when no credentials are set: the
 * mapping then runs without lookups (no host email from OwnerId), and says so once at start.
 * Throws ConfigError for half-set credentials or an unreadable private key.
 */
export function createDirectoryFromConfig(config: DirectorySettings, logger: Logger): SalesforceDirectory | undefined {
  const auth = salesforceAuthFromConfig(config);
  if (auth === undefined) {
    logger.warn('Salesforce lookups are off: no SALESFORCE_CLIENT_ID credentials; host emails are not looked up from OwnerId');
    return undefined;
  }
  logger.info('Salesforce lookups are on', { flow: auth.flow, loginUrl: auth.loginUrl, cacheTtlMs: config.SALESFORCE_LOOKUP_CACHE_TTL });
  const api = createSalesforceApi({ auth, apiVersion: config.SALESFORCE_API_VERSION });
  return createJsforceDirectory({ api, logger, cacheTtlMs: config.SALESFORCE_LOOKUP_CACHE_TTL });
}
