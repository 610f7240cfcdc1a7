import { boundKey } from '../store/store-values.ts';
import { JOB_PRIORITY, type JobPriority, type NewJob } from '../store/types.ts';
import { remapCoalesceKey } from './remap-coalesce-key.ts';
import type { ImportRequest, RemapFlags, RemapRequest } from './schemas.ts';

/** Momentum's limit is per API key over all endpoints: remaps and imports share one budget. */
export const MOMENTUM_RATE_KEY = 'momentum';

export const REMAP_JOB = 'remap';
export const IMPORT_JOB = 'import';

export interface DeliveryJobOptions {
  /** The inbound event the delivery was mapped from. */
  eventId?: number;
  /** Defaults to a live change; an operator's action or bulk work says so. */
  priority?: JobPriority;
  /** The source's own version of the state the delivery carries (meeting-order.ts). */
  sourceVersion?: number;
  replayOf?: number;
}

/**
 * The one way a remap job is made (mapping, manual, replay): coalesced per meeting, drawing one
 * call from Momentum's budget, in its priority class.
 */
export function remapJob(request: RemapRequest, flags: RemapFlags, options: DeliveryJobOptions = {}): NewJob {
  return deliveryJob(REMAP_JOB, { request, flags }, remapCoalesceKey(request), options);
}

/** An import job: it has no meeting key (the meeting is new to Momentum), so imports never coalesce. */
export function importJob(request: ImportRequest, options: DeliveryJobOptions = {}): NewJob {
  return deliveryJob(IMPORT_JOB, { request }, undefined, options);
}

/** A job of a delivery kind with this payload as it is (a replay copies the original's). */
export function deliveryJob(kind: string, payload: unknown, coalesceKey: string | undefined, options: DeliveryJobOptions): NewJob {
  return {
    kind,
    payload,
    ...(coalesceKey === undefined ? {} : { coalesceKey: boundKey(coalesceKey) }),
    rateKey: MOMENTUM_RATE_KEY,
    priority: options.priority ?? JOB_PRIORITY.live,
    ...(options.eventId === undefined ? {} : { eventId: options.eventId }),
    ...(options.sourceVersion === undefined ? {} : { sourceVersion: options.sourceVersion }),
    ...(options.replayOf === undefined ? {} : { replayOf: options.replayOf }),
  };
}
