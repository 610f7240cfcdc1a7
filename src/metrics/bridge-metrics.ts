import type { JobFinishedEvent } from '../jobs/run-job.ts';
import type { AttemptRecord, Job } from '../store/types.ts';

/**
 * What the bridge reports for its metrics. Routes, the worker and the mapping handler get this
 * small interface injected; only src/metrics/prometheus-metrics.ts knows about prom-client.
 * Label values are short fixed names (sources, kinds, error codes, rule names), never data.
 */

export interface InboundMetrics {
  /** One inbound request answered: `acked`, or `refused` with the error code as its reason. */
  inboundMessage(source: string, outcome: 'acked' | 'refused', reason?: string): void;
  /** The notifications of an acked message: newly stored (`acked`) and already stored (`duplicate`). */
  inboundNotifications(source: string, counts: { acked: number; duplicate: number }): void;
  /** Items of a message dropped one by one (a wrong clientState, an unknown subscription), by reason. */
  inboundNotificationsRefused?(source: string, reason: string, count: number): void;
  /** Authenticated items acknowledged but acted on in no way (a Graph lifecycle event the bridge does not know), by reason. */
  inboundNotificationsIgnored?(source: string, reason: string, count: number): void;
  /** Events a subscription received (Salesforce Pub/Sub), before they are stored, ignored or found duplicate. */
  inboundEventsReceived?(source: string, count: number): void;
}

export interface CalendarWatchMetrics {
  /** Channel or subscription upkeep: `created`, `renewed`, `recreated`, `deleted`, `failed`. */
  calendarUpkeep(source: string, what: string): void;
  /** One calendar sync ended: `succeeded`, `full_resync`, `failed`. */
  calendarSync(source: string, outcome: string): void;
  /** One lifecycle notification acted on, by its event. */
  calendarLifecycle(source: string, event: string): void;
}

export interface JobMetrics {
  /** Jobs written to the queue (a coalesced one included: the store may supersede an older one). */
  jobsEnqueued(kind: string, count: number): void;
  /** One run of a job ended (the worker's onJobFinished). */
  jobFinished(event: JobFinishedEvent): void;
  /** Jobs one claim took (the worker's onJobsClaimed), at `at`. */
  jobsClaimed(jobs: readonly Job[], at: number): void;
}

export type MappingResult = 'remap' | 'import' | 'skipped' | 'failed' | 'lookup_failed';

export interface MappingMetrics {
  /** One mapping decision; `rule` names the rule that matched (`none` when nothing did). */
  mappingOutcome(source: string, result: MappingResult, rule: string): void;
}

/** What reading Momentum back found (docs/operations.md, read-back and reconcile). */
export interface MomentumReadMetrics {
  /** Deliveries read back, by outcome: `confirmed`, `not_applied` (accepted but not applied), `not_found`. */
  readbackOutcome(outcome: string, count: number): void;
  /** Meetings a reconcile listed, by outcome: `seen` (the bridge delivered for it), `matched` (stored to be matched), `unchanged` (as listed before). */
  reconcileMeetings(outcome: string, count: number): void;
}

export interface BridgeMetrics extends InboundMetrics, JobMetrics, MappingMetrics, CalendarWatchMetrics, MomentumReadMetrics {}

export const noopMetrics: BridgeMetrics = {
  inboundMessage: () => {},
  inboundNotifications: () => {},
  jobsEnqueued: () => {},
  jobFinished: () => {},
  jobsClaimed: () => {},
  mappingOutcome: () => {},
  calendarUpkeep: () => {},
  calendarSync: () => {},
  calendarLifecycle: () => {},
  readbackOutcome: () => {},
  reconcileMeetings: () => {},
};

/**
 * The status class of one attempt: `2xx`…`5xx` when a response came back; `network`, `timeout`
 * or `aborted` when none did; `error` for a failure before or without a call (an exception, a
 * failed CRM lookup, an invalid request); `ok` for work that made no upstream call (mapping).
 */
export function statusClass(attempt: AttemptRecord): string {
  if (attempt.status !== undefined) return `${Math.floor(attempt.status / 100)}xx`;
  switch (attempt.errorClass) {
    case undefined:
      return 'ok';
    case 'network':
    case 'timeout':
    case 'aborted':
      return attempt.errorClass;
    default:
      return 'error';
  }
}
