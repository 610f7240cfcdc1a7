import type { RemapFlags, RemapRequest } from '../momentum/schemas.ts';

/** What mapping one inbound record decides: a remap to enqueue, or nothing, with why. */
export type MappingOutcome =
  /**
   * `rule`: which mapping rule produced it, for the mapping metrics (`sobject:Event` for Salesforce;
   * `explicit_ids`, `salesforce_link`, `attendees` for the calendar). A short fixed name, never data.
   */
  { kind: 'remap'; request: RemapRequest; flags: RemapFlags; coalesceKey: string; rule?: string } | { kind: 'skipped'; reason: string };

export const skipped = (reason: string): MappingOutcome => ({ kind: 'skipped', reason });
