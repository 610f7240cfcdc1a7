import { type MeetingToMatch, pinnedMatch } from '../matching/match-meeting.ts';
import type { MappingOutcome } from './mapping-outcome.ts';

/**
 * An operator's pin wins over every rule (docs/calendars.md, matching), whatever mapped the
 * meeting: calendar events and recordings apply it while matching; a Salesforce record's own ids
 * (WhatId and the like) give way to it here, so a pinned meeting keeps its record when the next
 * Outbound Message of the same Event arrives. A skipped outcome stays skipped: a pin picks the
 * record of a meeting, it does not make a meeting of what the rules skip.
 */
export function applyPin(outcome: MappingOutcome, pin: MeetingToMatch['pin']): MappingOutcome {
  if (pin === undefined || outcome.kind === 'skipped' || outcome.match?.outcome === 'pinned') return outcome;
  const match = pinnedMatch(pin);
  if (outcome.kind === 'remap') return { ...outcome, request: { ...outcome.request, salesforceRecords: pin.records }, rule: 'pinned', match };
  const meeting = { ...outcome.request.meeting };
  delete meeting.salesforceAccountId;
  delete meeting.salesforceOpportunityId;
  return {
    ...outcome,
    request: {
      ...outcome.request,
      meeting: {
        ...meeting,
        ...(pin.records.accountId ? { salesforceAccountId: pin.records.accountId } : {}),
        ...(pin.records.opportunityId ? { salesforceOpportunityId: pin.records.opportunityId } : {}),
      },
    },
    rule: 'pinned',
    match,
  };
}
