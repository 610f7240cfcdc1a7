import type { ListedMeeting } from './meeting-list.ts';

/** Salesforce ids as a remap carries them. */
export interface CarriedIds {
  opportunityId?: string;
  accountId?: string;
  leadId?: string;
}

/** Salesforce ids compare on their first 15 characters: the 18-character form only adds a checksum (docs/protocols.md §2). */
export const sameSalesforceId = (one: string, other: string | undefined): boolean => other !== undefined && one.slice(0, 15) === other.slice(0, 15);

/**
 * Whether Momentum holds these ids for the meeting: each one given must be the meeting's (an
 * opportunity and an account on the meeting itself, a lead on one of its attendees). Ids not given
 * are not compared: Momentum may fill in the account of an opportunity.
 */
export function holdsIds(listed: ListedMeeting, ids: CarriedIds): boolean {
  const { opportunityId, accountId, leadId } = ids;
  return (
    (opportunityId === undefined || sameSalesforceId(opportunityId, listed.salesforceOpportunityId)) &&
    (accountId === undefined || sameSalesforceId(accountId, listed.salesforceAccountId)) &&
    (leadId === undefined || listed.attendees.some((attendee) => sameSalesforceId(leadId, attendee.salesforceLeadId)))
  );
}

/** What Momentum holds for a listed meeting, as a read-back stores it. */
export const heldOf = (listed: ListedMeeting) => ({
  momentumMeetingId: listed.id,
  ...(listed.salesforceOpportunityId ? { opportunityId: listed.salesforceOpportunityId } : {}),
  ...(listed.salesforceAccountId ? { accountId: listed.salesforceAccountId } : {}),
});
