import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';

import { noneRemoved, type RemovedCounts, RETENTION_WALKS, type RetentionPass, type RetentionStore, type WalkState } from '../store/types.ts';

/**
 * One retention pass (docs/operations.md, retention): each walk in turn, batch by batch, from where
 * the last pass left it, then the match touches. Every batch is its own short transaction and the
 * pass pauses between them, so a sender's ack never waits behind more than one batch. A pass stops
 * after PASS_BATCHES batches; the next picks up where it stopped.
 */

export const DAY_MS = 86_400_000;
/** Rows removed per batch, about: each its own transaction. */
export const BATCH_ROWS = 500;
/**
 * Rows an event takes with it, about: its two jobs, their attempts, its match record, a delivery
 * row, and each row's index entries. The events walk reads BATCH_ROWS / EVENT_ROWS events a batch,
 * so its batches take as long as the others' (measured on SQLite: 500 events a batch held the
 * writer 45 ms at the median, 180 ms at the 99th percentile).
 */
export const EVENT_ROWS = 8;
/** Batches per pass at most: a large backlog (retention turned on after a year) is worked off over several passes. */
export const PASS_BATCHES = 200;
/**
 * A walk keeps going from where it stopped, so each row is read once, not every hour; once a day it
 * starts over from the first row, for rows kept then that may go now (a job then pending, a
 * meeting's delivery since followed by a newer one).
 */
export const REWALK_MS = DAY_MS;
/** Between batches: the writes that queued behind one (acks first) commit before the next starts. */
export const PAUSE_MS = 5;

export interface PassOptions {
  store: RetentionStore;
  now: number;
  /** RETENTION_DAYS, at least 1. */
  days: number;
  /** RETENTION_MEETING_DAYS: a meeting's kept state goes once untouched this long (at least `days`); 0 keeps it whatever its age. */
  meetingDays?: number;
  /** The re-match window (mapping rules): touches are read that far back, so they are kept that long too. */
  rematchDays: number;
  /** The last pass recorded: where its walks stood. */
  previous: RetentionPass | undefined;
  batchRows?: number;
  maxBatches?: number;
  pauseMs?: number;
  /** Asked before each batch after the first: false ends the pass (the bridge is stopping, or another instance took over). */
  keepGoing?: () => Promise<boolean>;
}

const freshWalk = (now: number): WalkState => ({ startedAt: now, cursors: { events: 0, jobs: 0, messages: 0 } });

function walkFrom(previous: RetentionPass | undefined, now: number): WalkState {
  if (previous === undefined || (previous.walk.caughtUp && now - previous.walk.startedAt >= REWALK_MS)) return freshWalk(now);
  return { startedAt: previous.walk.startedAt, cursors: { ...freshWalk(now).cursors, ...previous.walk.cursors } };
}

function add(total: RemovedCounts, removed: Partial<RemovedCounts>): void {
  for (const [table, count] of Object.entries(removed) as Array<[keyof RemovedCounts, number]>) total[table] += count;
}

/** Runs one pass and records it (RetentionStore.savePass), also when a batch fails: the next pass goes on from the last batch that committed. */
export async function runRetentionPass(options: PassOptions): Promise<RetentionPass> {
  const { store, now } = options;
  const batchRows = options.batchRows ?? BATCH_ROWS;
  // One batch per walk (each checks whether rows aged since) and the touches' at least, or a pass could never reach the last walk.
  const maxBatches = Math.max(options.maxBatches ?? PASS_BATCHES, RETENTION_WALKS.length + 2);
  const pauseMs = options.pauseMs ?? PAUSE_MS;
  const started = performance.now();
  const cutoff = now - options.days * DAY_MS;
  const meetingDays = options.meetingDays ?? 0;
  const restBefore = meetingDays === 0 ? 0 : now - Math.max(meetingDays, options.days) * DAY_MS;
  const walk = walkFrom(options.previous, now);
  const removed = noneRemoved();
  let batches = 0;
  let ended = false;
  const mayGoOn = async (): Promise<boolean> => {
    if (ended || batches >= maxBatches) return false;
    if (batches > 0) await delay(pauseMs);
    if (batches > 0 && options.keepGoing !== undefined && !(await options.keepGoing())) ended = true;
    return !ended;
  };

  let caughtUp = true;
  let touchesLeft = false;
  const record = (more: boolean): RetentionPass => ({
    at: now,
    cutoff,
    durationMs: Math.round(performance.now() - started),
    batches,
    removed,
    more,
    walk: { ...walk, caughtUp },
  });
  try {
    for (const name of RETENTION_WALKS) {
      let done = false;
      // Events kept (a meeting's last state) cost a read each, no write: after a batch that removed none, the next reads more.
      let keptAll = false;
      while (!done && (await mayGoOn())) {
        const limit = name === 'events' && !keptAll ? Math.max(1, Math.floor(batchRows / EVENT_ROWS)) : batchRows;
        const result = await store.pruneWalk({ walk: name, after: walk.cursors[name], before: cutoff, restBefore, limit });
        batches += 1;
        walk.cursors[name] = result.cursor;
        add(removed, result.removed);
        done = result.caughtUp;
        keptAll = (result.removed.events ?? 0) === 0;
      }
      // A table's rows wait for the rows pointing at them: a later walk runs only behind a finished one.
      if (!done) {
        caughtUp = false;
        break;
      }
    }
    const touchesBefore = Math.min(cutoff, now - options.rematchDays * DAY_MS);
    for (let gone = batchRows; gone === batchRows;) {
      if (!(await mayGoOn())) {
        touchesLeft = true;
        break;
      }
      gone = await store.pruneTouches(touchesBefore, batchRows);
      batches += 1;
      removed.matchTouches += gone;
    }
    for (let gone = batchRows; gone === batchRows && !touchesLeft;) {
      if (!(await mayGoOn())) {
        touchesLeft = true;
        break;
      }
      gone = await store.pruneRollups(cutoff, batchRows);
      batches += 1;
      removed.activityRollups += gone;
    }
  } catch (error) {
    caughtUp = false;
    await store.savePass(record(true)).catch(() => undefined);
    throw error;
  }
  const pass = record(!caughtUp || touchesLeft);
  await store.savePass(pass);
  return pass;
}
