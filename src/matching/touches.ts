import type { MatchRecord } from './types.ts';

/**
 * What a match looked at, so that a change to any of it re-checks the meeting (docs/calendars.md,
 * re-matching): its external attendees' emails and Contacts (a Contact created, a Lead converted,
 * a contact role made for one), every
 * Account it weighed (an opportunity created on it), every opportunity it weighed (a contact role
 * added, a close date moved) and its Leads.
 */
export interface Touch {
  kind: 'email' | 'contact' | 'account' | 'opportunity' | 'lead';
  value: string;
}

export function touchesOf(record: MatchRecord): Touch[] {
  const touches = new Map<string, Touch>();
  const add = (kind: Touch['kind'], value: string | null | undefined) => {
    if (value) touches.set(`${kind}|${value}`, { kind, value });
  };
  for (const attendee of record.attendees) {
    if (attendee.kind === 'internal') continue;
    add('email', attendee.email);
    // An attendee's Contact: a contact role made for them later names the Contact, not the email
    // nor an opportunity the match ever weighed (a deal created after a tie, its role saved after it).
    for (const contact of attendee.contacts) add('contact', contact.id);
  }
  for (const account of record.accounts) add('account', account.accountId);
  for (const candidate of record.candidates) {
    if (candidate.kind === 'opportunity') {
      add('opportunity', candidate.id);
      add('account', candidate.accountId);
    } else add(candidate.kind, candidate.id);
  }
  add('opportunity', record.records.opportunityId);
  add('account', record.records.accountId);
  add('lead', record.records.leadId);
  return [...touches.values()];
}
