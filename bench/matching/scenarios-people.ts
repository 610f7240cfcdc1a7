import type { Expected } from './labels.ts';
import { DAY_MS, ORG_NOW } from './org-builder.ts';
import type { Scenario } from './scenarios-deals.ts';
import { EU_COLLEAGUE, INTERNAL_DOMAIN, SALES_ENGINEER, type World } from './world.ts';

/**
 * Meetings decided by who the people are rather than by deals: a prospect known only as a Lead,
 * a customer writing from a personal address that is exactly their Contact's, the company's own
 * people only, and strangers at domains no Account has (some of them look-alikes of one that does).
 */

const NONE: Expected = { kind: 'none' };
const PERSONAL = ['gmail.com', 'outlook.com', 'yahoo.com', 'icloud.com'];

const lead: Scenario = (world, variant) => {
  const kind = variant % 4;
  const start = world.start();
  const [organizer, owner] = world.repsBut();
  const { name, domain } = world.company();
  const email = world.email(domain);
  if (kind === 3) {
    // Converted: the Lead lives on as a Contact, whose Account and deal are the answer.
    const customer = world.customer({ contacts: 1 });
    world.builder.lead(customer.contacts[0]!.email, { converted: true, company: customer.name });
    const theirs = world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – first deal`, createdDays: -5 });
    world.meeting({
      category: 'lead',
      title: `${customer.name} – follow-up`,
      startMs: start,
      organizer: organizer!,
      attendees: [customer.contacts[0]!.email],
      expected: { kind: 'records', opportunityId: theirs, accountId: customer.accountId },
      situation: 'a converted Lead: the Contact it became, with its deal',
    });
    return;
  }
  const leadId = world.builder.lead(kind === 2 ? email.toUpperCase() : email, { company: name });
  world.builder.lead(world.email(domain), { converted: true, company: name });
  const attendees = kind === 1 ? [email, world.email(domain)] : [email];
  world.meeting({
    category: 'lead',
    title: `${name} – first call`,
    startMs: start,
    organizer: organizer!,
    attendees,
    expected: { kind: 'records', leadId },
    situation: [
      'an unconverted Lead',
      'an unconverted Lead and a colleague of theirs unknown to Salesforce',
      'a Lead whose email Salesforce holds in capitals',
    ][kind]!,
  });
};

/** An Account whose Contacts all write from personal addresses: their domain must match nobody. */
const personalDecoysOf = new WeakMap<World, true>();
function personalDecoys(world: World): void {
  if (personalDecoysOf.has(world)) return;
  personalDecoysOf.set(world, true);
  const [owner] = world.repsBut();
  const freelancers = world.builder.account({ name: 'Freelancers Collective', website: null });
  for (const domain of PERSONAL) world.builder.contact(world.email(domain), freelancers);
  world.builder.opportunity({
    accountId: freelancers,
    name: 'Freelancers Collective – seats',
    ownerId: owner!.id,
    state: 'open',
    createdMs: ORG_NOW - 150 * DAY_MS,
    closeMs: ORG_NOW + 30 * DAY_MS,
    modifiedMs: ORG_NOW - 3 * DAY_MS,
  });
}

const personalEmail: Scenario = (world, variant) => {
  personalDecoys(world);
  const kind = variant % 4;
  const start = world.start();
  const [owner, organizer] = world.repsBut();
  const customer = world.customer({ contacts: 1 });
  const personal = world.email(world.rng.pick(PERSONAL));
  const contactId = world.builder.contact(personal, customer.accountId);
  const theirs = world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – founder plan` });
  if (kind === 3) world.builder.role(theirs, contactId);
  const stranger = world.email(world.rng.pick(PERSONAL));
  const cases: Array<{ attendees: string[]; expected: Expected; situation: string }> = [
    {
      attendees: [personal],
      expected: { kind: 'records', opportunityId: theirs, accountId: customer.accountId },
      situation: "a personal address that is exactly a Contact's",
    },
    {
      attendees: [personal, stranger],
      expected: { kind: 'records', opportunityId: theirs, accountId: customer.accountId },
      situation: "a Contact's personal address beside a stranger's at the same provider",
    },
    { attendees: [stranger], expected: NONE, situation: 'a stranger at a personal provider; an Account has Contacts there' },
    {
      attendees: [personal],
      expected: { kind: 'records', opportunityId: theirs, accountId: customer.accountId },
      situation: 'the personal address is the role on the deal',
    },
  ];
  const chosen = cases[kind]!;
  world.meeting({ category: 'personal-email', title: `${customer.name} – catch-up`, startMs: start, organizer: organizer!, ...chosen });
};

/** The company itself in Salesforce: an Account at its own domain with employees as Contacts and a deal. */
const internalAccountOf = new WeakMap<World, string[]>();
function internalAccount(world: World): string[] {
  const made = internalAccountOf.get(world);
  if (made !== undefined) return made;
  const [owner] = world.repsBut();
  const account = world.builder.account({ name: 'Seller Inc (internal)', website: `https://www.${INTERNAL_DOMAIN}` });
  const employees = [0, 1, 2].map(() => world.email(INTERNAL_DOMAIN));
  for (const email of employees) world.builder.contact(email, account);
  world.builder.opportunity({
    accountId: account,
    name: 'Seller Inc – internal licences',
    ownerId: owner!.id,
    state: 'open',
    createdMs: ORG_NOW - 300 * DAY_MS,
    closeMs: ORG_NOW + 90 * DAY_MS,
    modifiedMs: ORG_NOW - 2 * DAY_MS,
  });
  internalAccountOf.set(world, employees);
  return employees;
}

const internalOnly: Scenario = (world, variant) => {
  const employees = internalAccount(world);
  const [organizer, colleague] = world.repsBut();
  const attendees = [colleague!.email, ...(variant % 2 === 0 ? [employees[variant % 3]!] : [SALES_ENGINEER, EU_COLLEAGUE])];
  world.meeting({
    category: 'internal-only',
    title: 'Pipeline review',
    startMs: world.start(),
    organizer: organizer!,
    attendees,
    expected: NONE,
    situation: variant % 2 === 0 ? 'colleagues only; one is a Contact on the company’s own Account' : 'colleagues only, one at a subdomain of the company’s',
  });
};

const unknownDomain: Scenario = (world, variant) => {
  const kind = variant % 4;
  const start = world.start();
  const [owner, organizer] = world.repsBut();
  const customer = world.customer({ contacts: 2, tld: 'com' });
  world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – deal` });
  const stem = customer.domain.replace(/\.com$/, '');
  const strangerDomain = [world.company().domain, `${stem}.co`, customer.domain.slice(1), `${stem}-events.com`][kind]!;
  if (kind === 3) world.builder.account({ name: `${customer.name} events listing`, website: `https://listings.example.org/${stem}-events.com` });
  world.meeting({
    category: 'unknown-domain',
    title: 'Intro',
    startMs: start,
    organizer: organizer!,
    attendees: [world.email(strangerDomain)],
    expected: NONE,
    situation: [
      'a domain no Account has',
      `<stem>.co beside an Account at <stem>.com (a LIKE finds it)`,
      'a domain that is the tail of an Account’s (orvex.com for norvex.com)',
      'a domain found only in another Account’s Website path',
    ][kind]!,
  });
};

export const PEOPLE_SCENARIOS: Partial<Record<'lead' | 'personal-email' | 'internal-only' | 'unknown-domain', Scenario>> = {
  lead,
  'personal-email': personalEmail,
  'internal-only': internalOnly,
  'unknown-domain': unknownDomain,
};
