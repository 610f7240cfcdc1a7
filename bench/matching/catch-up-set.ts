import type { LabelledMeeting, SentRecords } from './labels.ts';
import { DAY_MS, ORG_NOW } from './org-builder.ts';
import type { Rep, World } from './world.ts';

/**
 * The catch-up group (docs/calendars.md, re-matching): first calls whose opportunity the rep
 * creates only after the meeting. At the first pass each Account has no opportunity in the window,
 * so the meeting's answer is the Account alone (its `expected`); the records the CRM gains later
 * are held out of the org (`deferred`) until the catch-up phase pushes them, each new opportunity
 * with the attendee as its contact role. Beside them, the control: a few meetings pinned by an
 * operator (catch-up ones among them), and meetings already on their right opportunity whose
 * Account also gains an opportunity that must not move them (the decoys).
 */

export const DEFERRED_OBJECTS = ['Contact', 'Opportunity', 'OpportunityContactRole'] as const;
export type DeferredObject = (typeof DEFERRED_OBJECTS)[number];

export interface CatchUpMeeting {
  meeting: LabelledMeeting;
  /** Its records once the CRM caught up: the new opportunity and its Account. */
  after: SentRecords;
}

export interface Pin {
  meetingId: string;
  records: SentRecords;
  reason: string;
}

export interface CatchUpSet {
  /** Every catch-up meeting, the pinned ones included. */
  meetings: CatchUpMeeting[];
  /** Meetings labelled with one opportunity whose Account gains another, created after them, that must not move them. */
  decoyTargets: string[];
  pins: Pin[];
  /** What the CRM gains at the catch-up, out of the org until then (stamped with a SystemModstamp when pushed). */
  deferred: Record<DeferredObject, Array<Record<string, unknown>>>;
}

export interface CatchUpOptions {
  count?: number;
  decoys?: number;
}

const SITUATIONS = [
  'no opportunity yet; the rep creates one with the attendee as its contact role',
  'only a deal lost long before; the rep creates a new one with the attendee as its contact role',
  'the attendee is not yet a Contact (the Account found by domain); the rep adds them and an opportunity with them as its role',
  'no opportunity yet; the rep creates two, the attendee a contact role on one',
];
const DECOY_CATEGORIES = new Set(['single-deal', 'owner', 'contact-role']);
/** Every seventh catch-up meeting (from the third) is pinned to its Account: an operator called it an account-level call. */
const pinnedCatchUp = (index: number) => index % 7 === 2;
const PINNED_DECOY_TARGETS = 2;

/** Days after `startMs` the opportunity is created: 1–20, and never after the org's clock. */
function createdDays(world: World, startMs: number): number {
  return Math.max(1, Math.min(world.rng.int(1, 20), Math.floor((ORG_NOW - DAY_MS - startMs) / DAY_MS)));
}

/** A rep who is neither the organizer nor invited: owning a deal gives it no attendance signal. */
function absentRep(world: World, meeting: LabelledMeeting): Rep {
  const present = new Set([meeting.organizer, ...meeting.attendees].map((email) => email.toLowerCase()));
  return world.repsBut().find((rep) => !present.has(rep.email))!;
}

/** A pin to the records the meeting's label names. */
function pinOf(meeting: LabelledMeeting, reason: string): Pin {
  if (meeting.expected.kind !== 'records') throw new Error(`${meeting.id} names no records to pin`);
  const { kind: _kind, ...records } = meeting.expected;
  return { meetingId: meeting.id, records, reason };
}

export function addCatchUp(world: World, existing: readonly LabelledMeeting[], { count = 28, decoys = 10 }: CatchUpOptions = {}): CatchUpSet {
  const { builder, rng } = world;
  const firsts = Array.from({ length: count }, (_, index) => {
    const kind = index % 4;
    const customer = world.customer({ contacts: rng.int(1, 3) });
    const startMs = world.start();
    const [organizer, owner] = world.repsBut();
    if (kind === 1)
      world.deal(customer.accountId, startMs, { owner: owner!, name: `${customer.name} – 2025 pilot`, state: 'lost', closeDays: -rng.int(40, 300) });
    const newcomer = kind === 2 ? world.email(customer.domain) : undefined;
    const meeting = world.meeting({
      category: 'catch-up',
      title: `${customer.name} – intro call`,
      startMs,
      organizer: organizer!,
      attendees: [newcomer ?? customer.contacts[0]!.email],
      expected: { kind: 'records', accountId: customer.accountId },
      situation: SITUATIONS[kind]!,
    });
    return { meeting, customer, owner: owner!, kind, newcomer };
  });
  const targets = existing
    .filter((meeting) => DECOY_CATEGORIES.has(meeting.category) && meeting.expected.kind === 'records' && meeting.expected.opportunityId !== undefined)
    .map((meeting) => ({ meeting, key: rng.next() }))
    .sort((a, b) => a.key - b.key)
    .slice(0, decoys)
    .map(({ meeting }) => meeting);

  // From here on, every record made is held out of the org until the catch-up.
  const { org } = builder;
  const marks = Object.fromEntries(DEFERRED_OBJECTS.map((sObject) => [sObject, org[sObject]!.length])) as Record<DeferredObject, number>;
  const meetings = firsts.map(({ meeting, customer, owner, kind, newcomer }) => {
    const days = createdDays(world, meeting.startMs);
    const name = `${customer.name} – first order`;
    const deal = world.deal(customer.accountId, meeting.startMs, { owner, name, createdDays: days, modifiedDays: days, closeDays: rng.int(40, 120) });
    builder.role(deal, newcomer === undefined ? customer.contacts[0]!.id : builder.contact(newcomer, customer.accountId));
    if (kind === 3)
      world.deal(customer.accountId, meeting.startMs, {
        owner: absentRep(world, meeting),
        name: `${customer.name} – services`,
        createdDays: days,
        modifiedDays: days,
      });
    return { meeting, after: { opportunityId: deal, accountId: customer.accountId } };
  });
  for (const meeting of targets) {
    const accountId = (meeting.expected as { accountId: string }).accountId;
    const days = createdDays(world, meeting.startMs);
    const name = `${builder.names.get(accountId) ?? accountId} – add-on`;
    const addOn = world.deal(accountId, meeting.startMs, { owner: absentRep(world, meeting), name, createdDays: days, modifiedDays: days });
    // A colleague of theirs who did not attend is its contact role, when the Account has one.
    const attendees = new Set(meeting.attendees.map((email) => email.toLowerCase()));
    const absent = org.Contact!.find((contact) => contact.AccountId === accountId && !attendees.has(String(contact.Email).toLowerCase()));
    if (absent !== undefined) builder.role(addOn, String(absent.Id));
  }
  const deferred = Object.fromEntries(DEFERRED_OBJECTS.map((sObject) => [sObject, org[sObject]!.splice(marks[sObject])])) as CatchUpSet['deferred'];

  const pins: Pin[] = [
    ...meetings.filter((_, index) => pinnedCatchUp(index)).map(({ meeting }) => pinOf(meeting, 'an account-level call, not about a deal')),
    ...targets.slice(0, PINNED_DECOY_TARGETS).map((meeting) => pinOf(meeting, 'checked by the rep')),
  ];
  return { meetings, decoyTargets: targets.map((meeting) => meeting.id), pins, deferred };
}
