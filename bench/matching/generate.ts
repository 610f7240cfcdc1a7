import type { JsonOrg } from '../../test/fakes/fake-salesforce-org/index.ts';
import { addCatchUp, type CatchUpSet } from './catch-up-set.ts';
import { CATEGORIES, type Category, type LabelledMeeting } from './labels.ts';
import { DEAL_SCENARIOS, type Scenario } from './scenarios-deals.ts';
import { DOMAIN_SCENARIOS } from './scenarios-domains.ts';
import { PEOPLE_SCENARIOS } from './scenarios-people.ts';
import { SHARED_SCENARIOS } from './scenarios-shared.ts';
import { createWorld, type World } from './world.ts';

/**
 * The benchmark's org and labelled meetings, the same for a given seed on every run: `perCategory`
 * meetings of each category, each with the records its situation needs, among `filler` Accounts
 * no meeting is about (with Contacts and deals of their own), in a shuffled order so a burst mixes
 * the categories as a real day would. The catch-up group (catch-up-set.ts) is made last, so the
 * categories' records and order are the same with it or without it.
 */

export interface MatchingSet {
  org: JsonOrg;
  /** Record names by id, for the report. */
  names: ReadonlyMap<string, string>;
  meetings: LabelledMeeting[];
  /** Meetings whose opportunity comes after them (not in `meetings`; their Accounts are in `org`, what the CRM gains later is not). */
  catchUp: CatchUpSet;
}

export interface MatchingSetOptions {
  seed?: number;
  perCategory?: number;
  filler?: number;
  /** Catch-up meetings (one in seven pinned). */
  catchUp?: number;
}

const SCENARIOS: Record<Category, Scenario> = { ...DEAL_SCENARIOS, ...DOMAIN_SCENARIOS, ...SHARED_SCENARIOS, ...PEOPLE_SCENARIOS } as Record<
  Category,
  Scenario
>;

function filler(world: World): void {
  const customer = world.customer({ contacts: world.rng.int(1, 4) });
  const start = world.start();
  const [owner] = world.repsBut();
  world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – opportunity` });
  if (world.rng.chance(0.5))
    world.deal(customer.accountId, start, { owner: owner!, name: `${customer.name} – earlier`, state: world.rng.pick(['won', 'lost'] as const) });
}

export function generateMatchingSet({ seed = 20_260_331, perCategory = 15, filler: fillerCount = 80, catchUp = 28 }: MatchingSetOptions = {}): MatchingSet {
  const world = createWorld(seed);
  for (const category of Object.keys(CATEGORIES) as Category[]) {
    const scenario = SCENARIOS[category];
    if (scenario === undefined) throw new Error(`no scenario generates category ${category}`);
    for (let variant = 0; variant < perCategory; variant++) scenario(world, variant);
  }
  for (let index = 0; index < fillerCount; index++) filler(world);
  const meetings = world.meetings
    .map((meeting) => ({ meeting, key: world.rng.next() }))
    .sort((a, b) => a.key - b.key)
    .map(({ meeting }) => meeting);
  return { org: world.builder.org, names: world.builder.names, meetings, catchUp: addCatchUp(world, meetings, { count: catchUp }) };
}
