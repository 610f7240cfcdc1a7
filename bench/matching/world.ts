import type { Expected, LabelledMeeting, MeetingCategory } from './labels.ts';
import { createOrgBuilder, DAY_MS, type OpportunitySpec, ORG_NOW, type OrgBuilder } from './org-builder.ts';
import { type Random, seededRandom } from './prng.ts';

/**
 * What every scenario generator shares: the org being written, the seeded generator, the sales
 * reps (Users at the internal domain), fresh company names, Website values in the formats real
 * orgs hold, and the labelled meetings added so far.
 */

export const INTERNAL_DOMAIN = 'seller.example';
/** A colleague who owns no opportunity: inviting them never changes the answer. */
export const SALES_ENGINEER = `sam.se@${INTERNAL_DOMAIN}`;
export const EU_COLLEAGUE = `eva.ops@eu.${INTERNAL_DOMAIN}`;

export interface Rep {
  id: string;
  email: string;
}

export interface Customer {
  accountId: string;
  name: string;
  domain: string;
  /** Contacts at the domain, each with its Contact id. */
  contacts: Array<{ id: string; email: string }>;
}

export interface MeetingSpec {
  category: MeetingCategory;
  title: string;
  startMs: number;
  organizer: Rep;
  attendees: string[];
  description?: string;
  location?: string;
  expected: Expected;
  situation: string;
}

const SYLLABLES = ['nor', 'vex', 'tal', 'qui', 'bra', 'zen', 'lum', 'ori', 'cas', 'del', 'fen', 'gar', 'hol', 'kir', 'mar', 'pel', 'ros', 'tev'];
const FIRST = ['gail', 'hank', 'iris', 'jon', 'kemal', 'lena', 'mo', 'nadia', 'omar', 'pia', 'quinn', 'raj', 'sofia', 'tom', 'uma', 'vik'];
const TLDS = ['com', 'com', 'com', 'io', 'de', 'co.uk'];
const SOURCE_TYPES = ['MS_TEAMS', 'ZOOM', 'USER_PROVIDED', 'GOOGLE_MEET'];
/** The replayed quarter: meetings start between these. */
const FIRST_MEETING = Date.parse('2026-01-12T00:00:00Z');
const QUARTER_DAYS = 66;

export const WEBSITE_FORMATS: ReadonlyArray<(domain: string) => string> = [
  (domain) => `https://www.${domain}/`,
  (domain) => domain,
  (domain) => `HTTP://${domain.toUpperCase()}:443/en`,
  (domain) => ` ${domain} `,
  (domain) => `www.${domain}`,
  (domain) => `https://${domain}/about-us?ref=crm`,
];

export interface World {
  readonly builder: OrgBuilder;
  readonly rng: Random;
  readonly reps: readonly Rep[];
  readonly meetings: LabelledMeeting[];
  /** A fresh company name and its domain (`norvex12.com`), never used before in the org. */
  company(tld?: string): { name: string; domain: string };
  website(domain: string): string;
  /** A new person's address at the domain. */
  email(domain: string): string;
  /** A meeting start in the replayed quarter (within its first `latestDay` days), on a working hour. */
  start(latestDay?: number): number;
  /** Reps other than those given, in a random order (so owners and organizers vary). */
  repsBut(...excluded: Rep[]): Rep[];
  /** A customer Account with `contacts` Contacts at its domain. */
  customer(options?: { contacts?: number; type?: string; website?: string | null; tld?: string }): Customer;
  /** An opportunity on `accountId` with its times given relative to the meeting (days). */
  deal(
    accountId: string,
    startMs: number,
    spec: Partial<OpportunitySpec> & { owner: Rep; name: string; createdDays?: number; closeDays?: number; modifiedDays?: number },
  ): string;
  meeting(spec: MeetingSpec): LabelledMeeting;
}

export function createWorld(seed: number): World {
  const builder = createOrgBuilder();
  const rng = seededRandom(seed);
  const reps = ['ana', 'ben', 'cara', 'dev', 'eli', 'fay'].map((name) => ({
    id: builder.user(`${name}@${INTERNAL_DOMAIN}`, name),
    email: `${name}@${INTERNAL_DOMAIN}`,
  }));
  builder.user(SALES_ENGINEER, 'Sam SE');
  const meetings: LabelledMeeting[] = [];
  const perCategory = new Map<MeetingCategory, number>();
  let companies = 0;
  let people = 0;

  const world: World = {
    builder,
    rng,
    reps,
    meetings,
    company(tld = rng.pick(TLDS)) {
      companies += 1;
      const stem = `${rng.pick(SYLLABLES)}${rng.pick(SYLLABLES)}`;
      return { name: `${stem[0]!.toUpperCase()}${stem.slice(1)} ${companies}`, domain: `${stem}${companies}.${tld}` };
    },
    website: (domain) => rng.pick(WEBSITE_FORMATS)(domain),
    email(domain) {
      people += 1;
      return `${rng.pick(FIRST)}.${people}@${domain}`;
    },
    start: (latestDay = QUARTER_DAYS) => FIRST_MEETING + rng.int(0, latestDay) * DAY_MS + rng.int(8, 17) * 3_600_000,
    repsBut: (...excluded) =>
      reps
        .filter((rep) => !excluded.includes(rep))
        .map((rep) => ({ rep, key: rng.next() }))
        .sort((a, b) => a.key - b.key)
        .map(({ rep }) => rep),
    customer({ contacts = 2, type = 'Customer', website, tld } = {}) {
      const { name, domain } = world.company(tld);
      const accountId = builder.account({ name, website: website === undefined ? world.website(domain) : website, type });
      const list = Array.from({ length: contacts }, () => {
        const email = world.email(domain);
        // Some Contacts were typed with capitals: Salesforce compares emails without case.
        return { id: builder.contact(rng.chance(0.2) ? email.replace(/^./, (c) => c.toUpperCase()) : email, accountId), email };
      });
      return { accountId, name, domain, contacts: list };
    },
    deal(accountId, startMs, { owner, name, createdDays = -rng.int(20, 120), closeDays, modifiedDays = -rng.int(1, 15), state = 'open', ...rest }) {
      const close = closeDays ?? (state === 'open' ? rng.int(20, 90) : -rng.int(30, 200));
      return builder.opportunity({
        accountId,
        name,
        ownerId: owner.id,
        state,
        createdMs: startMs + createdDays * DAY_MS,
        closeMs: startMs + close * DAY_MS,
        // Never after the org's now: a record is not modified in the future.
        modifiedMs: Math.min(startMs + modifiedDays * DAY_MS, ORG_NOW - DAY_MS),
        ...rest,
      });
    },
    meeting(spec) {
      const n = (perCategory.get(spec.category) ?? 0) + 1;
      perCategory.set(spec.category, n);
      const attendees = spec.attendees.map((email) => (rng.chance(0.15) ? email.toUpperCase() : email));
      // Senders often list the organizer, a colleague who owns nothing, or a room among the attendees.
      if (rng.chance(0.3)) attendees.push(spec.organizer.email);
      if (rng.chance(0.2)) attendees.push(rng.pick([SALES_ENGINEER, EU_COLLEAGUE]));
      if (rng.chance(0.1)) attendees.push(`room-${n}@resource.calendar.google.com`);
      const meeting: LabelledMeeting = {
        id: `${spec.category}-${String(n).padStart(3, '0')}`,
        category: spec.category,
        sourceType: SOURCE_TYPES[meetings.length % SOURCE_TYPES.length]!,
        title: spec.title,
        startMs: spec.startMs,
        organizer: spec.organizer.email,
        attendees,
        ...(spec.description === undefined ? {} : { description: spec.description }),
        ...(spec.location === undefined ? {} : { location: spec.location }),
        expected: spec.expected,
        situation: spec.situation,
      };
      meetings.push(meeting);
      return meeting;
    },
  };
  return world;
}
