import type { Expected } from './labels.ts';
import type { Scenario } from './scenarios-deals.ts';
import type { World } from './world.ts';

/**
 * Meetings whose attendees are not Contacts: the Account comes from their domain alone — its
 * Website in whatever format the org holds it, or its Contacts' addresses — never from a
 * substring, and an Account whose Website is exactly the domain beats a subsidiary under it.
 */

const answer = (accountId: string, opportunityId?: string): Expected => ({
  kind: 'records',
  accountId,
  ...(opportunityId === undefined ? {} : { opportunityId }),
});

/** Accounts whose Website contains the domain as text without being it (a LIKE finds them; a host compare must not). */
function decoys(world: World, name: string, domain: string, start: number): void {
  const [owner] = world.repsBut();
  const lookalike = world.builder.account({ name: `Not ${name}`, website: `not${domain}` });
  world.deal(lookalike, start, { owner: owner!, name: `Not ${name} – deal` });
  const shell = world.builder.account({ name: `${name} Holdings`, website: `https://${domain}.holdings.example.net/` });
  world.deal(shell, start, { owner: owner!, name: `${name} Holdings – deal` });
  world.builder.account({ name: `Directory entry ${name}`, website: `https://directory.example.net/c/${domain}` });
}

const domainOnly: Scenario = (world, variant) => {
  const kind = variant % 5;
  const start = world.start();
  const [owner, organizer] = world.repsBut();
  const customer = world.customer({ contacts: 2, ...(kind === 2 ? { website: null } : {}) });
  const open = kind === 1 ? undefined : world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – evaluation` });
  // Form 1 has no deal in the window (one lost long before): the Account alone is the answer.
  if (kind === 1) world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – 2024`, state: 'lost', closeDays: -world.rng.int(60, 300) });
  let situation = [
    'a new person at the domain; Website in a real-world format',
    'a new person at the domain; no deal in the window',
    'Website empty; the Account’s Contacts write from the domain',
  ][kind];
  if (kind === 3) {
    decoys(world, customer.name, customer.domain, start);
    situation = 'look-alike Accounts: not<domain>, <domain>.holdings…, a directory path with the domain';
  }
  if (kind === 4) {
    const old = world.builder.account({ name: `${customer.name} (old)`, website: null });
    world.builder.contact(world.email(customer.domain), old);
    world.deal(old, start, { owner: owner!, name: `${customer.name} (old) – never closed`, createdDays: -600 });
    situation = 'an old duplicate Account with one Contact at the domain and a stale open deal';
  }
  const attendees = [world.email(customer.domain)];
  if (variant % 2 === 1) attendees.push(world.email(customer.domain));
  world.meeting({
    category: 'domain-only',
    title: `${customer.name} – inbound demo`,
    startMs: start,
    organizer: organizer!,
    attendees,
    expected: answer(customer.accountId, open),
    situation: situation ?? '',
  });
};

const subsidiary: Scenario = (world, variant) => {
  const kind = variant % 4;
  const start = world.start();
  const [ownerParent, ownerSub, organizer] = world.repsBut();
  const { name, domain } = world.company('com');
  const parent = world.builder.account({ name, website: world.website(domain) });
  const subDomain = `jp.${domain}`;
  const sub = world.builder.account({ name: `${name} Japan`, website: world.website(subDomain) });
  const subContact = world.email(subDomain);
  world.builder.contact(subContact, sub);
  world.builder.contact(world.email(domain), parent);
  const subDeal = world.deal(sub, start, { owner: ownerSub!, name: `${name} Japan – rollout` });
  // Form 3: the parent's only deal was lost long before, so only the subsidiary has one in the window.
  const parentDeal = kind === 3 ? undefined : world.deal(parent, start, { owner: ownerParent!, name: `${name} – global` });
  if (kind === 3) world.deal(parent, start, { owner: ownerParent!, name: `${name} – 2024`, state: 'lost', closeDays: -world.rng.int(60, 300) });
  const cases: Array<{ attendee: string; expected: Expected; situation: string }> = [
    { attendee: world.email(subDomain), expected: answer(sub, subDeal), situation: 'a new person at jp.<domain>; both have a deal' },
    { attendee: world.email(domain), expected: answer(parent, parentDeal), situation: 'a new person at <domain>; both have a deal' },
    { attendee: subContact, expected: answer(sub, subDeal), situation: 'a Contact of the subsidiary' },
    { attendee: world.email(domain), expected: answer(parent), situation: 'a new person at <domain>; only the subsidiary has a deal' },
  ];
  const chosen = cases[kind]!;
  world.meeting({
    category: 'subsidiary',
    title: `${name} – quarterly review`,
    startMs: start,
    organizer: organizer!,
    attendees: [chosen.attendee],
    expected: chosen.expected,
    situation: chosen.situation,
  });
};

export const DOMAIN_SCENARIOS: Partial<Record<'domain-only' | 'subsidiary', Scenario>> = { 'domain-only': domainOnly, subsidiary };
