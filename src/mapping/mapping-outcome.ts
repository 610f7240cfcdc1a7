import type { MatchRecord } from '../matching/types.ts';
import type { ImportRequest, RemapFlags, RemapRequest } from '../momentum/schemas.ts';
import type { JobPriority } from '../store/types.ts';

/** What mapping one inbound record decides: a remap to enqueue, or nothing, with why. */
export type MappingOutcome =
  | {
      kind: 'remap';
      request: RemapRequest;
      flags: RemapFlags;
      coalesceKey: string;
      /**
       * Which mapping rule produced it, for the mapping metrics (`sobject:Event` for Salesforce;
       * `explicit_ids`, `salesforce_link`, `attendees` for the calendar). A short fixed name, never data.
       */
      rule?: string;
      /** The source's own version of the state mapped (epoch ms), read by the integration from its payload. */
      sourceVersion?: number;
      /** How the records were matched, stored with the mapping run (calendar events and recordings). */
      match?: MatchRecord;
      /** The remap's priority class when it is not a live change (a reconcile's remaps are bulk work). */
      priority?: JobPriority;
    }
  /**
   * A meeting Momentum never saw (a recording): imported, coalesced per its id. `note`: what the
   * mapping left out (attendees past the bound), kept as the event's reason beside its delivery.
   */
  | { kind: 'import'; request: ImportRequest; rule?: string; sourceVersion?: number; note?: string; match?: MatchRecord }
  /** `match`: the match record when matching found nothing to send (no match, or a tie held). */
  | { kind: 'skipped'; reason: string; match?: MatchRecord };

export const skipped = (reason: string, match?: MatchRecord): MappingOutcome => ({ kind: 'skipped', reason, ...(match === undefined ? {} : { match }) });
