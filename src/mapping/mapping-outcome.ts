import type { RemapFlags, RemapRequest } from '../momentum/schemas.ts';

/** What mapping one inbound record decides: a remap to enqueue, or nothing, with why. */
export type MappingOutcome =
  | { kind: 'remap'; request: RemapRequest; flags: RemapFlags; coalesceKey: string }
  | { kind: 'skipped'; reason: string };

export const skipped = (reason: string): MappingOutcome => ({ kind: 'skipped', reason });
