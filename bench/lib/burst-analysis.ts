import { busiestWindow } from '../../src/store/rate-log.ts';

/**
 * What the quota burst's calls say, read from the fake Momentum's side alone. Every figure is a
 * count of calls as they arrived, so nothing depends on the bridge's own bookkeeping.
 */

export interface BurstCall {
  at: number;
  accepted: boolean;
  /** The meeting and update the remap carried; undefined for a call the burst did not cause. */
  state: { meeting: number; update: number } | undefined;
}

export interface BurstShape {
  meetings: number;
  /** M: the last update of every meeting is its final state. */
  updates: number;
  windowMs: number;
}

export interface BurstAnalysis {
  /** Every request that reached the fake, refused ones included. */
  calls: number;
  refused: number;
  /** The most requests any window of W held (refused ones included). */
  peakInWindow: number;
  meetingsAtFinalState: number;
  /**
   * Meetings whose first accepted call carried an earlier update than the last: sent before their
   * last update came in, so one more call is needed. Coalescing can save every other call.
   */
  sentBeforeLastUpdate: number;
  /** Meetings sent exactly once, with their final state: every update coalesced into one call. */
  sentOnce: number;
  /** Accepted calls that carried no newer update than one already accepted for the meeting. */
  notNewer: number;
  /** Calls that carried no burst meeting at all. */
  unknown: number;
  /** When the last meeting's final state was accepted (undefined unless every meeting's was). */
  lastFinalAt: number | undefined;
  /** Calls (refused included) per window of W from `startedAt`, in order. */
  perWindow: number[];
}

export function analyseBurst(calls: readonly BurstCall[], shape: BurstShape, startedAt: number): BurstAnalysis {
  const sorted = [...calls].sort((a, b) => a.at - b.at);
  const newest = new Map<number, number>();
  const firstUpdate = new Map<number, number>();
  const finalAt = new Map<number, number>();
  const accepted = new Map<number, number>();
  let notNewer = 0;
  let unknown = 0;
  const perWindow: number[] = [];
  for (const call of sorted) {
    const index = Math.max(0, Math.floor((call.at - startedAt) / shape.windowMs));
    while (perWindow.length <= index) perWindow.push(0);
    perWindow[index] = (perWindow[index] as number) + 1;
    if (call.state === undefined) {
      unknown += 1;
      continue;
    }
    if (!call.accepted) continue;
    const { meeting, update } = call.state;
    const before = newest.get(meeting);
    if (before !== undefined && update <= before) notNewer += 1;
    newest.set(meeting, Math.max(before ?? 0, update));
    accepted.set(meeting, (accepted.get(meeting) ?? 0) + 1);
    if (!firstUpdate.has(meeting)) firstUpdate.set(meeting, update);
    if (update === shape.updates && !finalAt.has(meeting)) finalAt.set(meeting, call.at);
  }
  const sentBeforeLastUpdate = [...firstUpdate.values()].filter((update) => update < shape.updates).length;
  return {
    calls: sorted.length,
    refused: sorted.filter((call) => !call.accepted).length,
    peakInWindow: busiestWindow(
      sorted.map((call) => call.at),
      shape.windowMs,
    ),
    meetingsAtFinalState: finalAt.size,
    sentBeforeLastUpdate,
    sentOnce: [...accepted].filter(([meeting, count]) => count === 1 && firstUpdate.get(meeting) === shape.updates).length,
    notNewer,
    unknown,
    lastFinalAt: finalAt.size === shape.meetings ? Math.max(...finalAt.values()) : undefined,
    perWindow,
  };
}
