import type { MappingRules } from '../../mapping/rules-schema.ts';

/**
 * The objects whose changes a channel carries, for the SOQL backstop (docs/operations.md,
 * "Salesforce Pub/Sub"): `/data/OpportunityChangeEvent` is Opportunity's, `/data/Deal__ChangeEvent`
 * Deal__c's. A channel of several objects (`/data/ChangeEvents`, a custom `__chn` channel) names
 * none of them, so its backstop reads what the bridge acts on: the types the mapping file maps and
 * the records re-matching follows.
 */

const ONE_OBJECT = /^\/data\/([A-Za-z][A-Za-z0-9_]*)ChangeEvent$/;
const REMATCHED = ['Opportunity', 'OpportunityContactRole', 'Contact', 'Lead'];

export function backstopObjects(topic: string, rules: MappingRules): string[] {
  const object = ONE_OBJECT.exec(topic)?.[1];
  if (object !== undefined) return [object.endsWith('__') ? `${object}c` : object];
  const mapped = Object.entries(rules.sObjects)
    .filter(([, rule]) => rule.enabled)
    .map(([type]) => type);
  return [...new Set([...mapped, ...REMATCHED])];
}
