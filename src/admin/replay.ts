import { AppError } from '../core/errors.ts';
import { replayDeliveryJob } from '../momentum/delivery-jobs.ts';
import { type Job, JOB_PRIORITY, type JobPriority, type NewJob } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import { loadDelivery } from './deliveries.ts';
import { REPLAYABLE_STATES } from './request-schemas.ts';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A new delivery with the original's request, linked to it (replayOf) and to its inbound event.
 * It keeps the meeting's coalescing key, so it is paced, coalesced and never runs beside another
 * remap of that meeting, like any delivery. A single replay is an operator's action and goes
 * first; a bulk replay goes after live changes.
 */
export function replayJob(original: Job, priority: JobPriority = JOB_PRIORITY.operator): NewJob {
  // A replay is always sent: `replay` turns off the "unchanged → not re-sent" rule of remaps and
  // the "imported once" rule of imports.
  const payload = isRecord(original.payload) ? { ...original.payload, replay: true } : original.payload;
  return replayDeliveryJob(original.kind, payload, original.coalesceKey ?? undefined, {
    priority,
    replayOf: original.id,
    ...(original.eventId === null ? {} : { eventId: original.eventId }),
  });
}

export const isReplayable = (job: Job): boolean => (REPLAYABLE_STATES as readonly string[]).includes(job.state);

/**
 * One replay at a time per delivery: while a replay of it is still pending or running, another
 * would only send the same request again, so it is refused (409 naming that replay). Once that
 * replay has ended, the delivery may be replayed again. The store checks and inserts atomically,
 * so this holds against a concurrent replay or bulk replay on any instance.
 */
export async function replayDelivery(store: AdminStore, id: number): Promise<{ original: Job; replay: Job }> {
  const original = await loadDelivery(store, id);
  if (!isReplayable(original)) {
    throw new AppError('not_replayable', `delivery ${id} is ${original.state}; only ${REPLAYABLE_STATES.join(', ')} deliveries can be replayed`, {
      status: 409,
      details: { state: original.state },
    });
  }
  const [result] = await store.enqueueReplays([replayJob(original)], 'activeReplay');
  if (result === undefined) throw new Error(`enqueueing the replay of delivery ${id} returned no result`);
  if ('existingReplayId' in result) {
    throw new AppError(
      'replay_in_progress',
      `delivery ${id} already has replay ${result.existingReplayId} pending or running; replay it again once that one has ended`,
      {
        status: 409,
        details: { replayId: result.existingReplayId },
      },
    );
  }
  return { original, replay: result.created };
}

export async function cancelDelivery(store: AdminStore, id: number, keyFingerprint: string): Promise<Job> {
  const job = await loadDelivery(store, id);
  // The store changes it only if it is still pending: a worker may claim it between the two reads.
  const cancelled = job.state === 'pending' ? await store.cancelJob(id, `cancelled by an operator (key ${keyFingerprint})`) : undefined;
  if (cancelled !== undefined) return cancelled;
  const state = job.state === 'pending' ? ((await store.getJob(id))?.state ?? job.state) : job.state;
  throw new AppError('not_cancellable', `delivery ${id} is ${state}; only a pending delivery can be cancelled`, { status: 409, details: { state } });
}
