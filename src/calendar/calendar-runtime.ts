import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { EventMapper } from '../mapping/event-mapper.ts';
import type { CalendarRules } from '../mapping/rules-schema.ts';
import type { AttendeeDirectory } from '../salesforce/attendee-directory.ts';
import { salesforceAuthFromConfig, type SalesforceAuthSettings } from '../salesforce/auth-from-config.ts';
import { createJsforceAttendeeDirectory } from '../salesforce/jsforce-attendee-directory.ts';
import { createSalesforceApi, type SalesforceApi } from '../salesforce/jsforce-connection.ts';
import { createCalendarEventMapper } from './calendar-mapper.ts';

export type AttendeeDirectorySettings = SalesforceAuthSettings & Pick<Config, 'SALESFORCE_API_VERSION' | 'SALESFORCE_LOOKUP_CACHE_TTL'>;

/**
 * The attendee directory the Salesforce settings allow, or undefined without credentials (attendee
 * matching is then off; explicit ids and links still match). Pass `api` to share a connection.
 */
export function createAttendeeDirectoryFromConfig(config: AttendeeDirectorySettings, logger: Logger, api?: SalesforceApi): AttendeeDirectory | undefined {
  const auth = salesforceAuthFromConfig(config);
  if (auth === undefined) {
    logger.warn('calendar attendee matching is off: no Salesforce credentials (explicit ids and Salesforce links still match)');
    return undefined;
  }
  return createJsforceAttendeeDirectory({
    api: api ?? createSalesforceApi({ auth, apiVersion: config.SALESFORCE_API_VERSION }),
    logger,
    cacheTtlMs: config.SALESFORCE_LOOKUP_CACHE_TTL,
  });
}

/**
 * The map-event mappers for calendar events, keyed by InboundEvent.source: `google` (push + sync)
 * and `calendar` (the signed generic route). For createMapEventHandler's `mappers` option.
 */
export function calendarMappers(deps: { rules: CalendarRules; internalDomains: readonly string[]; directory: AttendeeDirectory | undefined }): Record<'google' | 'calendar', EventMapper> {
  const mapper = createCalendarEventMapper({ rules: deps.rules, internalDomains: deps.internalDomains, ...(deps.directory ? { directory: deps.directory } : {}) });
  return { google: mapper, calendar: mapper };
}
