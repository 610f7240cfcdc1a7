import type { Logger } from '../core/logger.ts';
import { withoutSecrets } from '../core/secret-text.ts';
import { isValueRefusal } from '../store/store-refusal.ts';
import type { AttemptRecord, FinishJob, Job, JobOutcome, Store } from '../store/types.ts';
import { toJobOutcome } from './job-outcome.ts';
import type { JobRegistry } from './registry.ts';
import type { HandlerResult, JobContext } from './types.ts';

/** One line per finished run, for metrics (the worker's `onJobFinished`). */
export interface JobFinishedEvent {
  jobId: number;
  kind: string;
  /** `retry` and `deferred` mean the job is pending again. */
  state: JobOutcome['state'];
  /** Attempts after this run (a deferral does not count one). */
  attempts: number;
  ms: number;
  /** False when the lease was lost before the outcome was stored (the job belongs to another run now). */
  recorded: boolean;
  /** The attempt this run stored (every run but a deferral stores one). */
  attempt?: AttemptRecord;
}

export interface RunJobDeps {
  store: Store;
  registry: JobRegistry;
  logger: Logger;
  owner: string;
  retrySchedule: readonly number[];
  now: () => number;
  random: () => number;
  onJobFinished?: (event: JobFinishedEvent) => void;
  /** Values never stored in an error or an attempt's excerpt. */
  secrets?: readonly string[];
}

/** How the worker steers one run. */
export interface RunControl {
  signal: AbortSignal;
  /** Set once stop() gave up on the job. */
  isAbandoned: () => boolean;
  /** Called once the handler is done and the outcome is on its way to the store: the slot is free. */
  release: () => void;
}

/** Runs one claimed job and stores its outcome. Never throws: a failure here must not stop the worker. */
export async function runJob(deps: RunJobDeps, job: Job, control: RunControl): Promise<void> {
  const { signal, isAbandoned, release } = control;
  const logger = deps.logger.child({ jobId: job.id, kind: job.kind });
  const startedAt = deps.now();
  // The store raises `attempts` with each attempt record (every run but a deferral), so this is attempt n+1.
  const attempt = job.attempts + 1;
  const result = await callHandler(deps, job, { logger, signal, now: deps.now }, startedAt);
  // stop() gave up on this job and released its lease: another run owns the outcome now.
  if (isAbandoned()) return;

  const decidedAt = deps.now();
  const secrets = deps.secrets ?? [];
  let outcome = withoutSecretsIn(toJobOutcome(result, { attempt, retrySchedule: deps.retrySchedule, now: decidedAt, random: deps.random }), secrets);
  const attempted = outcome.state === 'deferred' ? undefined : (result.attempt ?? defaultAttempt(result, startedAt, decidedAt));
  const record = attempted?.responseExcerpt === undefined ? attempted : { ...attempted, responseExcerpt: withoutSecrets(attempted.responseExcerpt, secrets) };
  const finish: FinishJob = {
    jobId: job.id,
    leaseOwner: deps.owner,
    outcome,
    ...(record && { attempt: record }),
    ...(result.enqueue && { enqueue: result.enqueue }),
    ...(result.eventUpdate && { eventUpdate: result.eventUpdate }),
    ...(result.matchRecord && { matchRecord: result.matchRecord }),
    ...(result.watermarks && { watermarks: result.watermarks }),
    ...(result.cancelPending && { cancelPending: result.cancelPending }),
    ...(result.delivered && { delivered: result.delivered }),
    // A paced job holds a call slot from its claim: kept when the call may have gone out, else given back.
    ...(job.rateKey !== null && { rateSlot: result.calledUpstream ? 'settle' : 'refund' }),
  };
  let recorded: boolean;
  try {
    const finishing = deps.store.finish(finish);
    // Freed once finish() is queued, so the worker's next claim joins the same SQLite group commit,
    // behind this outcome. An outcome that enqueues jobs is stored first: a job claimed ahead may
    // start in the freed slot at once, and must find a newer job of its key already pending to
    // step aside for it (coalescing).
    if (result.enqueue?.length) {
      recorded = await finishing.finally(release);
    } else {
      release();
      recorded = await finishing;
    }
  } catch (error) {
    if (!isValueRefusal(error)) {
      // Nothing is lost: the lease expires and the job runs again (at least once).
      logger.error('job outcome not stored; the job runs again when its lease expires', { error: messageOf(error) });
      return;
    }
    // The database refuses what this outcome would write (a value it cannot hold): storing it again
    // can never succeed, and running the job again would only loop. It ends dead with the reason.
    const stored = await storeRefusedOutcome(deps, finish, messageOf(error), logger);
    if (stored === undefined) return;
    outcome = stored.outcome;
    recorded = stored.recorded;
  }

  const event: JobFinishedEvent = {
    jobId: job.id,
    kind: job.kind,
    state: outcome.state,
    attempts: outcome.state === 'deferred' ? job.attempts : attempt,
    ms: deps.now() - startedAt,
    recorded,
    ...(record && { attempt: record }),
  };
  logFinished(logger, event, outcome);
  try {
    deps.onJobFinished?.(event);
  } catch (error) {
    logger.error('onJobFinished listener failed', { error: messageOf(error) });
  }
}

/** The refused outcome replaced by `dead` with the database's reason, keeping only what is safe to write. */
async function storeRefusedOutcome(
  deps: RunJobDeps,
  refused: FinishJob,
  error: string,
  logger: Logger,
): Promise<{ outcome: JobOutcome; recorded: boolean } | undefined> {
  // The database's message names the rule, never the value; it is cut so the reason stays one line.
  const reason = `outcome could not be stored: ${error.replaceAll('\u0000', '').slice(0, 500)}`;
  const outcome: JobOutcome = { state: 'dead', reason };
  const { attempt } = refused;
  try {
    const recorded = await deps.store.finish({
      jobId: refused.jobId,
      leaseOwner: refused.leaseOwner,
      outcome,
      ...(attempt && {
        attempt: {
          startedAt: attempt.startedAt,
          durationMs: attempt.durationMs,
          ...(attempt.status === undefined ? {} : { status: attempt.status }),
          errorClass: 'store_refused',
          responseExcerpt: reason,
        },
      }),
      ...(refused.eventUpdate && { eventUpdate: { eventId: refused.eventUpdate.eventId, state: 'failed' as const, reason } }),
      ...(refused.rateSlot && { rateSlot: refused.rateSlot }),
    });
    logger.warn('job outcome refused by the store; the job ends dead', { error });
    return { outcome, recorded };
  } catch (fallbackError) {
    logger.error('job outcome not stored; the job runs again when its lease expires', { error, fallbackError: messageOf(fallbackError) });
    return undefined;
  }
}

async function callHandler(deps: RunJobDeps, job: Job, context: JobContext, startedAt: number): Promise<HandlerResult> {
  try {
    return await deps.registry.handlerFor(job.kind)(job, context);
  } catch (error) {
    // A bug or an unexpected failure in a handler: retry on the schedule rather than lose the job.
    const message = messageOf(error);
    context.logger.warn('job handler threw', { error: message });
    return {
      kind: 'retryable',
      error: message,
      attempt: { startedAt, durationMs: deps.now() - startedAt, errorClass: 'exception', responseExcerpt: message.slice(0, 4096) },
    };
  }
}

/**
 * The store counts an attempt when it records one, so every run that is not a deferral leaves a
 * record, even when the handler made none (a throw, an unknown kind, a check that failed early).
 */
/** The outcome with known secret values taken out of its error or reason, before it is stored and logged. */
function withoutSecretsIn(outcome: JobOutcome, secrets: readonly string[]): JobOutcome {
  if (secrets.length === 0) return outcome;
  if (outcome.state === 'retry') return { ...outcome, error: withoutSecrets(outcome.error, secrets) };
  if (outcome.state === 'dead' || outcome.state === 'skipped' || outcome.state === 'cancelled')
    return { ...outcome, reason: withoutSecrets(outcome.reason, secrets) };
  return outcome;
}

function defaultAttempt(result: HandlerResult, startedAt: number, now: number): AttemptRecord {
  const errorClass = result.kind === 'retryable' ? 'error' : result.kind === 'final' && result.state === 'dead' ? 'dead' : undefined;
  return { startedAt, durationMs: now - startedAt, ...(errorClass && { errorClass }) };
}

function logFinished(logger: Logger, event: JobFinishedEvent, outcome: JobOutcome): void {
  // Ids, states and timings only: a payload may hold personal data and never reaches info level.
  const { jobId: _jobId, kind: _kind, recorded, attempt, ...fields } = event;
  // The upstream's answer belongs on the job's one line: status and request id, when there was a call.
  const upstream = {
    ...(attempt?.status === undefined ? {} : { status: attempt.status }),
    ...(attempt?.upstreamRequestId ? { upstreamRequestId: attempt.upstreamRequestId } : {}),
  };
  if (!recorded) {
    logger.warn('job lease lost before its outcome was stored', { ...fields, ...upstream });
    return;
  }
  const why = 'reason' in outcome ? { reason: outcome.reason } : 'error' in outcome ? { error: outcome.error } : {};
  logger.log(outcome.state === 'dead' ? 'warn' : 'info', 'job finished', { ...fields, ...upstream, ...why });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
