import { z } from 'zod';

import { type EventMapper, UnmappableEventError } from '../mapping/event-mapper.ts';
import type { MappingOutcome } from '../mapping/mapping-outcome.ts';
import type { MappingRules } from '../mapping/rules-schema.ts';
import { describeIssues } from '../momentum/schemas.ts';
import type { SalesforceDirectory } from './directory.ts';
import { mapSObject, ownerIdsToLookUp } from './map-sobject.ts';

// What the Outbound Message receiver stores per notification (SalesforceEventPayload); extra keys are kept as they are.
const storedNotificationSchema = z.looseObject({
  organizationId: z.string().optional(),
  actionId: z.string().optional(),
  notificationId: z.string(),
  sObjectType: z.string(),
  fields: z.record(z.string(), z.string()),
});

export interface SalesforceEventMapperDeps {
  rules: MappingRules;
  /** Absent when no Salesforce credentials are configured: no owner email lookups. */
  directory?: SalesforceDirectory;
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
    const outcome = mapSObject(deps.rules, notification);
    if (outcome.kind === 'skipped' || deps.directory === undefined) return withRule(outcome, notification.sObjectType);
    const owners = ownerIdsToLookUp(deps.rules, notification);
    if (owners.length === 0) return withRule(outcome, notification.sObjectType);
    const ownerEmails = await deps.directory.ownerEmails(owners);
    return withRule(mapSObject(deps.rules, notification, { ownerEmails }), notification.sObjectType);
  };
}

/** The rules file is keyed by sObject type, so the type's entry is the rule that matched (metrics label). */
function withRule(outcome: MappingOutcome, sObjectType: string): MappingOutcome {
  return outcome.kind === 'remap' ? { ...outcome, rule: `sobject:${sObjectType}` } : outcome;
}
