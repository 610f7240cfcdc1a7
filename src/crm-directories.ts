import type { Config } from './core/config.ts';
import { IGNORED_REPORT, type IntegrationReport, reportingCalls } from './core/health-registry.ts';
import type { Logger } from './core/logger.ts';
import type { CrmDirectory } from './matching/directory.ts';
import { salesforceAuthFromConfig, type SalesforceAuthSettings } from './salesforce/auth-from-config.ts';
import { createJsforceCrmChanges, type CrmChanges } from './salesforce/crm-changes.ts';
import type { SalesforceDirectory } from './salesforce/directory.ts';
import { createSalesforceApi, type SalesforceApi } from './salesforce/jsforce-connection.ts';
import { createJsforceCrmDirectory } from './salesforce/jsforce-crm-directory.ts';
import { createJsforceDirectory } from './salesforce/jsforce-directory.ts';

export type DirectorySettings = SalesforceAuthSettings & Pick<Config, 'SALESFORCE_API_VERSION' | 'SALESFORCE_LOOKUP_CACHE_TTL'>;

export interface CrmDirectories {
  /** Owner emails for Salesforce records (OwnerId → hostEmail). */
  owners: SalesforceDirectory | undefined;
  /** Contacts, leads, accounts and opportunities for matching meetings. */
  attendees: CrmDirectory | undefined;
  /** What changed since a watermark, for the re-match sweep. */
  changes: CrmChanges | undefined;
  /** The connection itself, for the Pub/Sub subscriber's session and its REST reads. */
  api: SalesforceApi | undefined;
}

/**
 * The CRM lookups the Salesforce settings allow, on one shared Salesforce connection (one OAuth
 * token for both), or none without credentials: mapping then runs without lookups (no host email
 * from OwnerId, no attendee matching; explicit ids and Salesforce links still match), and says so
 * once at start. Throws ConfigError for half-set credentials or an unreadable private key.
 */
export function createCrmDirectories(
  config: DirectorySettings,
  logger: Logger,
  options: { opportunityTeams?: boolean; health?: IntegrationReport } = {},
): CrmDirectories {
  const auth = salesforceAuthFromConfig(config);
  if (auth === undefined) {
    logger.warn(
      'Salesforce lookups are off: no SALESFORCE_CLIENT_ID credentials; host emails are not looked up from OwnerId and calendar attendees are not matched (explicit ids and Salesforce links still match)',
    );
    return { owners: undefined, attendees: undefined, changes: undefined, api: undefined };
  }
  logger.info('Salesforce lookups are on', { flow: auth.flow, loginUrl: auth.loginUrl, cacheTtlMs: config.SALESFORCE_LOOKUP_CACHE_TTL });
  // Every lookup (owners, attendees, the sweep) goes through this one connection: its outcomes feed GET /admin/health.
  const api = reportingCalls(createSalesforceApi({ auth, apiVersion: config.SALESFORCE_API_VERSION }), ['get'], options.health ?? IGNORED_REPORT);
  const cacheTtlMs = config.SALESFORCE_LOOKUP_CACHE_TTL;
  return {
    owners: createJsforceDirectory({ api, logger, cacheTtlMs }),
    attendees: createJsforceCrmDirectory({ api, logger, cacheTtlMs, opportunityTeams: options.opportunityTeams ?? false }),
    changes: createJsforceCrmChanges(api, logger),
    api,
  };
}
