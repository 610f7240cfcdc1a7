import type { Category, Expected } from './labels.ts';
import type { World } from './world.ts';

/**
 * Meetings with a customer whose Account has deals: which one the meeting is about, decided by
 * what a rep would look at — the only deal, the deal the attendees are contact roles on, the
 * deal the attending rep owns, a link the rep pasted, a deal won days ago, a deal opened days
 * after a first call — and the tie nothing decides. Each call adds one meeting and its records;
 * `variant` walks through the forms of the situation.
 */

export type Scenario = (world: World, variant: number) => void;

const deal = (opportunityId: string, accountId: string): Expected => ({ kind: 'records', opportunityId, accountId });

const singleDeal: Scenario = (world, variant) => {
  const customer = world.customer({ contacts: 3 });
  const start = world.start();
  const [owner, other] = world.repsBut();
  const open = world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – new business` });
  if (variant % 3 === 0)
    world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – pilot`, state: 'lost', closeDays: -world.rng.int(40, 300) });
  if (variant % 3 === 1)
    world.deal(customer.accountId, start, { owner: other!, name: `${customer.name} – first order`, state: 'won', closeDays: -world.rng.int(30, 300) });
  if (variant % 4 === 2) world.builder.role(open, customer.contacts[0]!.id);
  const attendees = customer.contacts.slice(0, 1 + (variant % 2)).map((contact) => contact.email);
  if (variant % 5 === 3) attendees.push(world.email(customer.domain)); // a colleague of theirs, not in Salesforce
  world.meeting({
    category: 'single-deal',
    title: `${customer.name} – discovery`,
    startMs: start,
    organizer: world.rng.pick([owner!, other!]),
    attendees,
    expected: deal(open, customer.accountId),
    situation: ['one open deal; a pilot lost long before', 'one open deal; a first order won long before', 'one open deal'][variant % 3]!,
  });
};

const contactRole: Scenario = (world, variant) => {
  const customer = world.customer({ contacts: 3 });
  const start = world.start();
  const [ownerA, ownerB, organizer] = world.repsBut();
  // The other deal is the most recently modified: a "newest" guess would take it.
  const other = world.deal(customer.accountId, start, { owner: ownerA!, name: `${customer.name} – expansion`, modifiedDays: -1 });
  const theirs = world.deal(customer.accountId, start, { owner: ownerB!, name: `${customer.name} – renewal`, modifiedDays: -world.rng.int(5, 40) });
  const [first, second, third] = customer.contacts;
  world.builder.role(theirs, first!.id);
  let attendees = [first!.email, second!.email];
  let situation = 'an attendee is a contact role on one of two open deals';
  if (variant % 3 === 1) {
    world.builder.role(theirs, second!.id, 'Influencer');
    world.builder.role(other, third!.id);
    attendees = [first!.email, second!.email, third!.email];
    situation = 'two attendees are roles on one deal, one on the other';
  } else if (variant % 3 === 2) {
    const lost = world.deal(customer.accountId, start, {
      owner: ownerA!,
      name: `${customer.name} – 2025 bid`,
      state: 'lost',
      closeDays: -world.rng.int(45, 200),
    });
    world.builder.role(lost, second!.id);
    situation = 'an attendee is a role on an open deal, another on a deal lost months ago';
  }
  world.meeting({
    category: 'contact-role',
    title: `${customer.name} – renewal terms`,
    startMs: start,
    organizer: organizer!,
    attendees,
    expected: deal(theirs, customer.accountId),
    situation,
  });
};

const ownerDecides: Scenario = (world, variant) => {
  const customer = world.customer({ contacts: 2 });
  const start = world.start();
  const [ownerA, ownerB, third] = world.repsBut();
  const other = world.deal(customer.accountId, start, { owner: ownerA!, name: `${customer.name} – services`, modifiedDays: -1 });
  const theirs = world.deal(customer.accountId, start, { owner: ownerB!, name: `${customer.name} – platform`, modifiedDays: -world.rng.int(5, 40) });
  const attendees = [customer.contacts[0]!.email];
  let organizer = ownerB!;
  let situation = 'the organizer owns one of two open deals';
  if (variant % 3 === 1) {
    organizer = third!;
    attendees.push(ownerB!.email);
    situation = 'a colleague invited owns one of two open deals; the organizer owns neither';
  } else if (variant % 3 === 2) {
    world.builder.role(other, customer.contacts[0]!.id);
    world.builder.role(theirs, customer.contacts[0]!.id);
    situation = 'the attendee is a role on both deals; the organizer owns one';
  }
  world.meeting({
    category: 'owner',
    title: `${customer.name} – weekly`,
    startMs: start,
    organizer,
    attendees,
    expected: deal(theirs, customer.accountId),
    situation,
  });
};

const ambiguous: Scenario = (world, variant) => {
  const customer = world.customer({ contacts: 2 });
  const start = world.start(variant % 3 === 2 ? 30 : undefined);
  const [ownerA, ownerB, organizer] = world.repsBut();
  const after = variant % 3 === 2;
  const created = () => (after ? { createdDays: world.rng.int(3, 20), modifiedDays: world.rng.int(21, 25) } : {});
  const a = world.deal(customer.accountId, start, { owner: ownerA!, name: `${customer.name} – licences`, ...created() });
  const b = world.deal(customer.accountId, start, { owner: ownerB!, name: `${customer.name} – consulting`, ...created() });
  if (variant % 3 === 1) {
    world.builder.role(a, customer.contacts[0]!.id);
    world.builder.role(b, customer.contacts[0]!.id);
  }
  world.meeting({
    category: 'ambiguous',
    title: `${customer.name} – catch-up`,
    startMs: start,
    organizer: organizer!,
    attendees: customer.contacts.map((contact) => contact.email),
    expected: { kind: 'ambiguous', accountId: customer.accountId, tied: [a, b].map((opportunityId) => ({ opportunityId, accountId: customer.accountId })) },
    situation: [
      'two open deals, no role, owners absent',
      'the attendee is a role on both deals, owners absent',
      'two deals opened days after the call, no role',
    ][variant % 3]!,
  });
};

const explicitLink: Scenario = (world, variant) => {
  const customer = world.customer({ contacts: 2 });
  const start = world.start();
  const [ownerA, ownerB, organizer] = world.repsBut();
  const attendeesPick = world.deal(customer.accountId, start, { owner: ownerA!, name: `${customer.name} – core` });
  world.builder.role(attendeesPick, customer.contacts[0]!.id);
  const linked = world.deal(customer.accountId, start, { owner: ownerB!, name: `${customer.name} – add-on` });
  const lightning = `https://seller.lightning.force.com/lightning/r/Opportunity/${linked}/view`;
  const forms = [
    { description: `Agenda: add-on scope.\nDeal: ${lightning}` },
    { description: `Opportunity https://seller.my.salesforce.com/${linked.slice(0, 15)} (pricing)` },
    { location: `https://zoom.us/j/8812 | ${lightning}` },
    { description: `Re: ${customer.name} add-on, SF ${linked}` },
  ] as const;
  world.meeting({
    category: 'explicit-link',
    title: `${customer.name} – add-on scoping`,
    startMs: start,
    organizer: organizer!,
    attendees: customer.contacts.map((contact) => contact.email),
    ...forms[variant % forms.length]!,
    expected: deal(linked, customer.accountId),
    situation: `${['a Lightning URL', 'a Classic URL (15-character id)', 'a Lightning URL in the location', 'a bare 18-character id'][variant % 4]} names the other deal than the attendees' role`,
  });
};

const closedWon: Scenario = (world, variant) => {
  const customer = world.customer({ contacts: 2 });
  const start = world.start();
  const [ownerA, ownerB, organizer] = world.repsBut();
  const won = world.deal(customer.accountId, start, {
    owner: ownerA!,
    name: `${customer.name} – year 1`,
    state: 'won',
    closeDays: -world.rng.int(1, 12),
    createdDays: -120,
  });
  world.deal(customer.accountId, start, { owner: ownerB!, name: `${customer.name} – trial`, state: 'lost', closeDays: -world.rng.int(40, 200) });
  if (variant % 2 === 1) {
    world.builder.role(won, customer.contacts[0]!.id);
    world.deal(customer.accountId, start, { owner: ownerB!, name: `${customer.name} – phase 2`, createdDays: -world.rng.int(60, 200) });
  }
  world.meeting({
    category: 'closed-won',
    title: `${customer.name} – kickoff`,
    startMs: start,
    organizer: organizer!,
    attendees: [customer.contacts[0]!.email],
    expected: deal(won, customer.accountId),
    situation:
      variant % 2 === 1
        ? 'kickoff days after the win; the attendee is its role; a phase-2 deal is open'
        : 'kickoff days after the win; an older deal was lost months ago',
  });
};

const createdAfter: Scenario = (world, variant) => {
  const customer = world.customer({ contacts: 2 });
  const start = world.start(30);
  const [ownerA, ownerB, organizer] = world.repsBut();
  const createdDays = world.rng.int(3, 25);
  const opened = world.deal(customer.accountId, start, {
    owner: ownerA!,
    name: `${customer.name} – new logo`,
    createdDays,
    closeDays: createdDays + world.rng.int(30, 90),
    modifiedDays: createdDays + 2,
  });
  world.builder.role(opened, customer.contacts[0]!.id);
  const situations = [
    'deal opened days after the first call, the attendee its role; an old deal lost months before',
    'deal opened days after the call, the attendee its role; a renewal without roles is open',
    'deal opened days after the call, the attendee its role; another opened 45 days after',
  ];
  if (variant % 3 === 0)
    world.deal(customer.accountId, start, { owner: ownerB!, name: `${customer.name} – 2025`, state: 'lost', closeDays: -world.rng.int(40, 200) });
  if (variant % 3 === 1) world.deal(customer.accountId, start, { owner: ownerB!, name: `${customer.name} – renewal`, createdDays: -world.rng.int(90, 300) });
  if (variant % 3 === 2) {
    const late = world.deal(customer.accountId, start, { owner: ownerB!, name: `${customer.name} – phase 2`, createdDays: 45, modifiedDays: 46 });
    world.builder.role(late, customer.contacts[1]!.id);
  }
  world.meeting({
    category: 'created-after',
    title: `${customer.name} – intro call`,
    startMs: start,
    organizer: organizer!,
    attendees: [customer.contacts[0]!.email],
    expected: deal(opened, customer.accountId),
    situation: situations[variant % 3]!,
  });
};

export const DEAL_SCENARIOS: Partial<Record<Category, Scenario>> = {
  'single-deal': singleDeal,
  'contact-role': contactRole,
  owner: ownerDecides,
  ambiguous,
  'explicit-link': explicitLink,
  'closed-won': closedWon,
  'created-after': createdAfter,
};
