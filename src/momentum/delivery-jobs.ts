import { defineJobKind, type JobFields } from '../jobs/job-kind.ts';
import type { HandlerResult, JobContext } from '../jobs/types.ts';
import { boundKey } from '../store/store-values.ts';
import { type Job, JOB_PRIORITY, type JobPriority, type NewJob } from '../store/types.ts';
import { invalidRequest } from './delivery-outcome.ts';
import { meetingCoalesceKey, remapCoalesceKey } from './remap-coalesce-key.ts';
import { importDeliveryPayloadSchema, type ImportRequest, remapDeliveryPayloadSchema, type RemapFlags, type RemapRequest } from './schemas.ts';

/** Momentum's limit is per API key over all endpoints: remaps and imports share one budget. */
export const MOMENTUM_RATE_KEY = 'momentum';

/**
 * Where the sandbox's calls are logged (PacedBudget.logKey). Momentum counts per API key and the
 * sandbox's calls reach no Momentum at all, so they are kept apart: a bridge switched from sandbox
 * to a real key starts with that key's whole budget. Real keys keep the log the bridge has always
 * used, so a rolling restart onto this version still counts the calls the previous one made, and
 * a change from one real key to another can only make the bridge wait, never exceed the limit.
 */
export const SANDBOX_RATE_LOG_KEY = 'momentum:sandbox';

/** The log Momentum's calls are counted in: the sandbox's own, or the real keys'. */
export const momentumRateLogKey = (sandbox: boolean): string => (sandbox ? SANDBOX_RATE_LOG_KEY : MOMENTUM_RATE_KEY);

// A delivery whose stored payload fails its schema is never sent: dead at once, the attempt log says why.
const invalidDelivery = (issues: string, job: Job, context: JobContext): HandlerResult => {
  context.logger.warn(`${job.kind} payload fails its schema, not sent`, { jobId: job.id, issues });
  return invalidRequest(issues, context.now());
};

/** `remap`: one call to POST /v1/meeting/remap, coalesced per meeting, drawing one call from the budget. */
export const remapKind = defineJobKind('remap', remapDeliveryPayloadSchema, {
  fieldsOf: (payload) => ({ coalesceKey: remapCoalesceKey(payload.request), rateKey: MOMENTUM_RATE_KEY }),
  invalid: invalidDelivery,
});

/**
 * `import`: one call to POST /user-provided-meeting. Coalesced per the meeting's own id when it
 * has one (a recording notified twice, a record saved twice, is one meeting, and its newest state
 * goes); without an id one meeting cannot be told from another, so it never coalesces.
 */
export const importKind = defineJobKind('import', importDeliveryPayloadSchema, {
  fieldsOf: (payload) => ({
    ...(payload.request.meeting.id === undefined ? {} : { coalesceKey: importCoalesceKey(payload.request.meeting.id) }),
    rateKey: MOMENTUM_RATE_KEY,
  }),
  invalid: invalidDelivery,
});

/** The meeting an import is about, bounded like every key. */
export const importCoalesceKey = (meetingId: string): string => boundKey(`import:${meetingId}`);

export const REMAP_JOB = remapKind.name;
export const IMPORT_JOB = importKind.name;

export interface DeliveryJobOptions {
  /** The inbound event the delivery was mapped from. */
  eventId?: number;
  /** Defaults to a live change; an operator's action or bulk work says so. */
  priority?: JobPriority;
  /** The source's own version of the state the delivery carries (store/meeting-order.ts). */
  sourceVersion?: number;
  replayOf?: number;
  /** The meeting the delivery is about (MeetingIdentities): a remap then coalesces per meeting, not per how it names the meeting. */
  meetingId?: number;
}

/** The one way a remap job is made (mapping, manual): coalesced per meeting, in its priority class. */
export function remapJob(request: RemapRequest, flags: RemapFlags, options: DeliveryJobOptions = {}): NewJob {
  const meeting = options.meetingId === undefined ? {} : { coalesceKey: meetingCoalesceKey(options.meetingId) };
  return remapKind.job({ request, flags }, { ...deliveryFields(options), ...meeting });
}

/** The one way an import job is made (mapping, recordings, manual). */
export function importJob(request: ImportRequest, options: DeliveryJobOptions = {}): NewJob {
  return importKind.job({ request }, deliveryFields(options));
}

/**
 * A replay: the original's payload as it was stored (it may no longer fit today's schema; the
 * handler then ends it dead with the reason), on the original's coalescing key and budget.
 */
export function replayDeliveryJob(kind: string, payload: unknown, coalesceKey: string | undefined, options: DeliveryJobOptions): NewJob {
  return {
    kind,
    payload,
    ...(coalesceKey === undefined ? {} : { coalesceKey: boundKey(coalesceKey) }),
    rateKey: MOMENTUM_RATE_KEY,
    ...deliveryFields(options),
  };
}

function deliveryFields(options: DeliveryJobOptions): JobFields {
  return {
    priority: options.priority ?? JOB_PRIORITY.live,
    ...(options.eventId === undefined ? {} : { eventId: options.eventId }),
    ...(options.sourceVersion === undefined ? {} : { sourceVersion: options.sourceVersion }),
    ...(options.replayOf === undefined ? {} : { replayOf: options.replayOf }),
  };
}
