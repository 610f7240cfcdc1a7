import type { RecipeName } from './template-recipes.ts';
import { pick } from './vary.ts';

/**
 * Which template each event of the year copies and in which variant: the mix of sources and
 * outcomes, the meetings changed twice in quick succession (the first delivery superseded by the
 * second), and the newest deliveries still waiting for Momentum's budget.
 */

/** Per thousand events. */
export const RECIPE_MIX: ReadonlyArray<readonly [RecipeName, number]> = [
  ['salesforce', 340],
  ['salesforceDead', 10],
  ['calendarMatched', 300],
  ['calendarTied', 50],
  ['calendarNone', 80],
  ['calendarInternal', 60],
  ['recording', 160],
];

/** Per thousand events of a recipe that can change twice (remaps): the first of a superseded pair. */
export const SUPERSEDED_PER_THOUSAND = 60;
/** The share of the newest events whose delivery is still pending. */
export const PENDING_SHARE = 0.0005;

const DELIVERING: ReadonlySet<RecipeName> = new Set(['salesforce', 'salesforceDead', 'calendarMatched', 'calendarTied', 'recording']);
const CHANGED_TWICE: ReadonlySet<RecipeName> = new Set(['salesforce', 'calendarMatched']);

/**
 * normal: as the template; supersededFirst: its delivery superseded by the next event's (which is
 * an `update` of the same meeting, holding the meeting's rows); pending: delivery not sent yet.
 */
export type Variant = 'normal' | 'supersededFirst' | 'update' | 'pending';

export interface EventPlan {
  recipe: RecipeName;
  variant: Variant;
  /** Whose identity (title, people, records, start) the event carries. */
  identity: number;
}

export const hasDelivery = (recipe: RecipeName): boolean => DELIVERING.has(recipe);

function recipeOf(n: number): RecipeName {
  let roll = pick(n, 20, 1000);
  for (const [name, weight] of RECIPE_MIX) {
    if (roll < weight) return name;
    roll -= weight;
  }
  return 'salesforce';
}

export const pendingFrom = (total: number): number => total - Math.ceil(total * PENDING_SHARE);

/** Pairs start at even indexes only, so an update is never itself superseded. */
function startsPair(n: number, total: number): boolean {
  return n % 2 === 0 && n + 1 < pendingFrom(total) && CHANGED_TWICE.has(recipeOf(n)) && pick(n, 21, 1000) < SUPERSEDED_PER_THOUSAND;
}

export function planOf(n: number, total: number): EventPlan {
  if (n % 2 === 1 && startsPair(n - 1, total)) return { recipe: recipeOf(n - 1), variant: 'update', identity: n - 1 };
  const recipe = recipeOf(n);
  if (startsPair(n, total)) return { recipe, variant: 'supersededFirst', identity: n };
  if (n >= pendingFrom(total) && hasDelivery(recipe)) return { recipe, variant: 'pending', identity: n };
  return { recipe, variant: 'normal', identity: n };
}
