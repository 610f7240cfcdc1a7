import type { MatchRecord } from './types.ts';

/**
 * What a match looked at, so that a change to any of it re-checks the meeting (docs/calendars.md,
 * re-matching): its external attendees' emails (a Contact created, a Lead converted), every
 * Account it weighed (an opportunity created on it), every opportunity it weighed (a contact role
 * added, a close date moved) and its Leads.
 */
export interface Touch {
  kind: 'email' | 'account' | 'opportunity' | 'lead';
  value: string;
}

export function touchesOf(record: MatchRecord): Touch[] {
  const touches = new Map<string, Touch>();
  const add = (kind: Touch['kind'], value: string | null | undefined) => {
    if (value) touches.set(`${kind}|${value}`, { kind, value });
  };
  for (const attendee of record.attendees) if (attendee.kind !== 'internal') add('email', attendee.email);
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
