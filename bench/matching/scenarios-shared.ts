import type { Expected } from './labels.ts';
import { DAY_MS, ORG_NOW } from './org-builder.ts';
import type { Scenario } from './scenarios-deals.ts';
import type { Customer, Rep, World } from './world.ts';

/**
 * People who belong to more than one Account: a partner who comes to the customer's meeting
 * with more people than the customer brings, and one email on two Accounts (an old duplicate, a
 * reseller's copy of the customer's contact, a consultant working for two clients).
 */

interface Partner extends Customer {
  /** The partner's own deal (licences it buys), with its first Contact as a role. */
  ownDeal: string;
}

const deal = (opportunityId: string, accountId: string): Expected => ({ kind: 'records', opportunityId, accountId });

/** Three partner Accounts (Type Partner) every partner meeting draws from, made on first use. */
const partnersOf = new WeakMap<World, Partner[]>();
function partners(world: World): Partner[] {
  const made = partnersOf.get(world);
  if (made !== undefined) return made;
  const manager = world.reps[world.reps.length - 1]!;
  const list = [0, 1, 2].map(() => {
    const partner = world.customer({ contacts: 4, type: 'Partner' });
    const ownDeal = world.builder.opportunity({
      accountId: partner.accountId,
      name: `${partner.name} – partner licences`,
      ownerId: manager.id,
      state: 'open',
      createdMs: ORG_NOW - 200 * DAY_MS,
      closeMs: ORG_NOW + 60 * DAY_MS,
      modifiedMs: ORG_NOW - world.rng.int(1, 5) * DAY_MS,
    });
    world.builder.role(ownDeal, partner.contacts[0]!.id);
    return { ...partner, ownDeal };
  });
  partnersOf.set(world, list);
  return list;
}

const partnerCustomer: Scenario = (world, variant) => {
  const partner = partners(world)[variant % 3]!;
  const kind = variant % 4;
  const customer = world.customer({ contacts: 1 });
  const start = world.start();
  const manager = world.reps[world.reps.length - 1]!;
  const [owner, other] = world.repsBut(manager);
  const theirs = world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – via ${partner.name}` });
  world.builder.role(theirs, customer.contacts[0]!.id);
  const [own, p1, p2, p3] = partner.contacts;
  if (kind === 2) {
    world.builder.role(theirs, p1!.id, 'Reseller');
    world.builder.role(theirs, p2!.id, 'Reseller');
  }
  const bringsOwnRole = kind === 1 || kind === 3;
  const partnerPeople = bringsOwnRole ? [own!, p1!, p2!] : [p1!, p2!, p3!];
  world.meeting({
    category: 'partner-customer',
    title: `${customer.name} with ${partner.name}`,
    startMs: start,
    organizer: kind === 1 ? owner! : other!,
    attendees: [customer.contacts[0]!.email, ...partnerPeople.map((person) => person.email)],
    expected: deal(theirs, customer.accountId),
    situation: [
      'three partner people, none a role; the customer is the role on its deal',
      "a partner person is the role on the partner's own deal; the organizer owns the customer's",
      "the partner people are Reseller roles on the customer's deal",
      "a partner person is the role on the partner's own deal; the organizer owns neither",
    ][kind]!,
  });
};

/** A second Contact record with `email` on `accountId`. */
const copy = (world: World, email: string, accountId: string) => world.builder.contact(email, accountId);

const sharedEmail: Scenario = (world, variant) => {
  const kind = variant % 7;
  const start = world.start();
  const [ownerA, ownerB, organizer] = world.repsBut();
  if (kind <= 2) {
    const customer = world.customer({ contacts: 2 });
    const person = customer.contacts[0]!;
    const theirs = world.deal(customer.accountId, start, { owner: ownerA!, name: `${customer.name} – subscription` });
    if (kind !== 1) world.builder.role(theirs, person.id);
    let situation = 'an old duplicate Account holds a copy of the Contact; the real one has the deal and the role';
    if (kind === 1) situation = 'an old duplicate Account holds a copy of the Contact; no role anywhere';
    if (kind <= 1) {
      const old = world.builder.account({ name: `${customer.name} (old)`, website: world.rng.chance(0.5) ? world.website(customer.domain) : null });
      copy(world, person.email, old);
      world.deal(old, start, { owner: ownerB!, name: `${customer.name} (old) – 2023`, state: 'lost', closeDays: -world.rng.int(100, 300) });
    } else {
      const reseller = world.customer({ contacts: 1, type: 'Partner' });
      const registered = world.deal(reseller.accountId, start, { owner: ownerB!, name: `${reseller.name} – resale to ${customer.name}` });
      world.builder.role(registered, copy(world, person.email, reseller.accountId));
      situation = "a reseller's Account holds a copy of the customer's Contact, a role on the reseller's deal too";
    }
    world.meeting({
      category: 'shared-email',
      title: `${customer.name} – check-in`,
      startMs: start,
      organizer: organizer!,
      attendees: [person.email],
      expected: deal(theirs, customer.accountId),
      situation,
    });
    return;
  }
  // A consultant's one address on two clients' Accounts.
  const consultant = world.email(world.company().domain);
  const clientA = world.customer({ contacts: 1 });
  const clientB = world.customer({ contacts: 1 });
  const dealA = world.deal(clientA.accountId, start, { owner: ownerA!, name: `${clientA.name} – implementation` });
  const dealB = world.deal(clientB.accountId, start, { owner: ownerB!, name: `${clientB.name} – implementation` });
  world.builder.role(dealA, clientA.contacts[0]!.id);
  copy(world, consultant, clientA.accountId);
  const onB = copy(world, consultant, clientB.accountId);
  if (kind === 3 || kind === 4) world.builder.role(dealB, onB);
  const cases: Array<{ attendees: string[]; organizer: Rep; expected: Expected; situation: string }> = [
    {
      attendees: [consultant, clientA.contacts[0]!.email],
      organizer: organizer!,
      expected: deal(dealA, clientA.accountId),
      situation: "a consultant on two clients (a role on B's deal) comes with A's contact, A's role",
    },
    { attendees: [consultant], organizer: organizer!, expected: deal(dealB, clientB.accountId), situation: "the consultant alone; a role on B's deal only" },
    { attendees: [consultant], organizer: ownerB!, expected: deal(dealB, clientB.accountId), situation: "the consultant alone; the organizer owns B's deal" },
    {
      attendees: [consultant],
      organizer: organizer!,
      expected: {
        kind: 'ambiguous',
        tied: [
          { opportunityId: dealA, accountId: clientA.accountId },
          { opportunityId: dealB, accountId: clientB.accountId },
        ],
      },
      situation: 'the consultant alone; no role, the owners absent: nothing tells the clients apart',
    },
  ];
  const chosen = cases[kind - 3]!;
  world.meeting({
    category: 'shared-email',
    title: 'Implementation sync',
    startMs: start,
    organizer: chosen.organizer,
    attendees: chosen.attendees,
    expected: chosen.expected,
    situation: chosen.situation,
  });
};

export const SHARED_SCENARIOS: Partial<Record<'partner-customer' | 'shared-email', Scenario>> = {
  'partner-customer': partnerCustomer,
  'shared-email': sharedEmail,
};
