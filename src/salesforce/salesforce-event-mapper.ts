import { describeIssues } from '../core/describe-issues.ts';
import { type EventMapper, UnmappableEventError } from '../mapping/event-mapper.ts';
import type { MappingOutcome } from '../mapping/mapping-outcome.ts';
import type { MappingRules } from '../mapping/rules-schema.ts';
import type { SalesforceDirectory } from './directory.ts';
import { mapSObject, ownerIdsToLookUp } from './map-sobject.ts';
import { salesforceVersion, type StoredNotification, storedNotificationSchema } from './stored-notification.ts';

export interface SalesforceEventMapperDeps {
  rules: MappingRules;
  /** Absent when no Salesforce credentials are configured: no owner email lookups. */
  directory?: SalesforceDirectory;
  /** INTERNAL_EMAIL_DOMAINS, for the attendees of imported recording records. */
  internalDomains?: readonly string[];
}

/**
 * Stored Outbound Message notification → remap or skip. Maps once without lookups, so a
 * notification that is skipped anyway never waits on (or retries for) Salesforce; then looks up
 * the owner's email when the rule asks for it and maps again with the answer.
 */
export function createSalesforceEventMapper(deps: SalesforceEventMapperDeps): EventMapper {
  return async (event) => {
    const parsed = storedNotificationSchema.safeParse(event.parsedPayload);
    if (!parsed.success) {
      throw new UnmappableEventError(`stored Salesforce notification is malformed: ${describeIssues(parsed.error)}`);
    }
    const notification = parsed.data;
    const internal = { internalDomains: deps.internalDomains ?? [] };
    const outcome = mapSObject(deps.rules, notification, { ownerEmails: new Map(), ...internal });
    if (outcome.kind === 'skipped' || deps.directory === undefined) return withRuleAndVersion(outcome, notification);
    const owners = ownerIdsToLookUp(deps.rules, notification);
    if (owners.length === 0) return withRuleAndVersion(outcome, notification);
    const ownerEmails = await deps.directory.ownerEmails(owners);
    return withRuleAndVersion(mapSObject(deps.rules, notification, { ownerEmails, ...internal }), notification);
  };
}

/** The rules file is keyed by sObject type, so the type's entry is the rule that matched (metrics label). */
function withRuleAndVersion(outcome: MappingOutcome, notification: StoredNotification): MappingOutcome {
  if (outcome.kind === 'skipped') return outcome;
  const sourceVersion = salesforceVersion(notification);
  return { ...outcome, rule: `sobject:${notification.sObjectType}`, ...(sourceVersion === undefined ? {} : { sourceVersion }) };
}
