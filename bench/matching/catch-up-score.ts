import type { RemapArrival } from './bench-bridge.ts';
import type { SentRecords } from './labels.ts';

/**
 * Scores the catch-up phase from the remaps that reached Momentum, in arrival order, and the
 * moment the CRM changed (docs/performance.md, matching: catch-up):
 * - a catch-up meeting moved when its newest remap names its new opportunity and its Account;
 * - a remap after the change changed nothing when it names the same records as the meeting's
 *   remap before it (a first remap of a meeting always changes something);
 * - a control meeting (pinned, or already on its right opportunity) is touched when any remap of
 *   it arrives after the change;
 * - the times run from the change to the first and to the last remap after it.
 */

export interface CatchUpGroups {
  /** The catch-up meetings no operator pinned, by id: the records each should move to. */
  moving: ReadonlyMap<string, SentRecords>;
  pinned: ReadonlySet<string>;
  /** Meetings whose first answer was their right opportunity, the pinned ones aside. */
  final: ReadonlySet<string>;
}

export type Standing = 'moved' | 'still no opportunity' | 'wrong opportunity' | 'no remap';

export interface CatchUpScore {
  moving: number;
  moved: number;
  /** The catch-up meetings not moved, with where each stands. */
  notMoved: Array<{ id: string; standing: Exclude<Standing, 'moved'>; records?: SentRecords }>;
  remapsAfter: number;
  /** Ids of the meetings of each remap after the change that named the same records as the one before it. */
  unchanged: string[];
  pinnedTouched: string[];
  finalTouched: string[];
  /** Milliseconds from the change to the first and to the last remap after it; undefined when none came. */
  firstMs?: number;
  lastMs?: number;
}

export const sameRecords = (a: SentRecords, b: SentRecords): boolean =>
  a.opportunityId === b.opportunityId && a.accountId === b.accountId && a.leadId === b.leadId;

export function standingOf(expected: SentRecords, latest: SentRecords | undefined): Standing {
  if (latest === undefined) return 'no remap';
  if (latest.opportunityId === undefined) return 'still no opportunity';
  return latest.opportunityId === expected.opportunityId && latest.accountId === expected.accountId ? 'moved' : 'wrong opportunity';
}

export function scoreCatchUp(remaps: readonly RemapArrival[], changeAt: number, groups: CatchUpGroups): CatchUpScore {
  const latest = new Map<string, SentRecords>();
  const unchanged: string[] = [];
  const touched = new Set<string>();
  let remapsAfter = 0;
  let firstMs: number | undefined;
  let lastMs: number | undefined;
  // Stable: remaps of one millisecond keep their arrival order.
  for (const remap of [...remaps].sort((a, b) => a.at - b.at)) {
    if (remap.at >= changeAt) {
      remapsAfter += 1;
      const before = latest.get(remap.id);
      if (before !== undefined && sameRecords(before, remap.records)) unchanged.push(remap.id);
      touched.add(remap.id);
      firstMs ??= remap.at - changeAt;
      lastMs = remap.at - changeAt;
    }
    latest.set(remap.id, remap.records);
  }
  const notMoved: CatchUpScore['notMoved'] = [];
  for (const [id, expected] of groups.moving) {
    const standing = standingOf(expected, latest.get(id));
    if (standing !== 'moved') notMoved.push({ id, standing, ...(latest.has(id) ? { records: latest.get(id)! } : {}) });
  }
  return {
    moving: groups.moving.size,
    moved: groups.moving.size - notMoved.length,
    notMoved,
    remapsAfter,
    unchanged,
    pinnedTouched: [...groups.pinned].filter((id) => touched.has(id)),
    finalTouched: [...groups.final].filter((id) => touched.has(id)),
    ...(firstMs === undefined ? {} : { firstMs, lastMs: lastMs! }),
  };
}
