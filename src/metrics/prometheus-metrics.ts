import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

import type { Logger } from '../core/logger.ts';
import type { AdminReads, CalendarChannels } from '../store/types.ts';
import { type BridgeMetrics, statusClass } from './bridge-metrics.ts';
import { registerQueueGauges } from './queue-gauges.ts';
import { registerWatchGauges } from './watch-gauges.ts';

/** What GET /metrics serves: the text and its content type. */
export interface MetricsExposition {
  contentType: string;
  render(): Promise<string>;
}

export interface PrometheusMetrics {
  metrics: BridgeMetrics;
  exposition: MetricsExposition;
}

export interface PrometheusMetricsOptions {
  logger: Logger;
  /** Source of the queue gauges, read at each scrape; without it they are not registered. */
  store?: Pick<AdminReads, 'stats'> & Partial<CalendarChannels>;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
// Pacing waits: Momentum allows 100 calls per 15 minutes, so waits run from seconds to a window.
const WAIT_SECONDS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800];

/**
 * The prom-client adapter behind BridgeMetrics. Each call makes its own Registry (never the
 * global default), so several apps can live in one process (tests) without clashing names.
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const inboundMessages = new Counter({
    name: 'bridge_inbound_messages_total',
    help: 'Inbound requests answered, by source and outcome (acked, refused); reason is the refusal code',
    labelNames: ['source', 'outcome', 'reason'],
    registers,
  });
  const inboundNotifications = new Counter({
    name: 'bridge_inbound_notifications_total',
    help: 'Notifications (events) in inbound messages, by source and outcome (acked: newly stored, duplicate: already stored, refused, ignored: acked but not acted on); reason says why',
    labelNames: ['source', 'outcome', 'reason'],
    registers,
  });
  const inboundEventsReceived = new Counter({
    name: 'bridge_inbound_events_received_total',
    help: 'Events a subscription received (salesforce-pubsub: Change Data Capture events), by source, before storing; bridge_inbound_notifications_total says what became of them',
    labelNames: ['source'],
    registers,
  });
  const calendarUpkeep = new Counter({
    name: 'bridge_calendar_upkeep_total',
    help: 'Calendar watch upkeep by source (microsoft: Graph subscriptions) and what happened (created, renewed, recreated, deleted, failed)',
    labelNames: ['source', 'what'],
    registers,
  });
  const calendarSyncs = new Counter({
    name: 'bridge_calendar_syncs_total',
    help: 'Calendar syncs by source (microsoft: delta syncs) and outcome (succeeded, full_resync, failed)',
    labelNames: ['source', 'outcome'],
    registers,
  });
  const calendarLifecycle = new Counter({
    name: 'bridge_calendar_lifecycle_events_total',
    help: 'Lifecycle notifications acted on, by source and event (reauthorizationRequired, subscriptionRemoved, missed)',
    labelNames: ['source', 'event'],
    registers,
  });
  const jobsEnqueued = new Counter({ name: 'bridge_jobs_enqueued_total', help: 'Jobs written to the queue, by kind', labelNames: ['kind'], registers });
  const jobRuns = new Counter({
    name: 'bridge_job_runs_total',
    help: 'Job runs by kind and outcome (succeeded, retry, dead, skipped, cancelled, deferred, lease_lost)',
    labelNames: ['kind', 'outcome'],
    registers,
  });
  const attempts = new Counter({
    name: 'bridge_attempts_total',
    help: 'Attempts by kind and status class (2xx, 4xx, 5xx, network, timeout, aborted, error, ok)',
    labelNames: ['kind', 'status_class'],
    registers,
  });
  const attemptDuration = new Histogram({
    name: 'bridge_attempt_duration_seconds',
    help: 'Duration of one attempt (for deliveries: the Momentum call), by kind',
    labelNames: ['kind'],
    buckets: SECONDS,
    registers,
  });
  const rateLimitWait = new Histogram({
    name: 'bridge_rate_limit_wait_seconds',
    help: "Paced jobs (Momentum calls): how long a job waited past its run time for a slot of Momentum's budget, observed when it was claimed, by kind",
    labelNames: ['kind'],
    buckets: WAIT_SECONDS,
    registers,
  });
  const jobClaims = new Counter({
    name: 'bridge_job_claims_total',
    help: 'Jobs claimed by the worker, by kind; for a paced kind, claims per delivered call is this over bridge_attempts_total',
    labelNames: ['kind'],
    registers,
  });
  const mappingOutcomes = new Counter({
    name: 'bridge_mapping_outcomes_total',
    help: 'Mapping decisions by source, result (remap, skipped, failed, lookup_failed) and the rule that matched',
    labelNames: ['source', 'result', 'rule'],
    registers,
  });
  const readbacks = new Counter({
    name: 'bridge_readback_total',
    help: 'Remaps read back from Momentum, by outcome (confirmed: the ids sent; not_applied: accepted but other ids held; not_found: not listed)',
    labelNames: ['outcome'],
    registers,
  });
  const reconciled = new Counter({
    name: 'bridge_reconcile_meetings_total',
    help: 'Meetings a reconcile listed from Momentum, by outcome (seen: the bridge delivered for it; matched: stored to be matched; unchanged: as listed before)',
    labelNames: ['outcome'],
    registers,
  });
  if (options.store) registerQueueGauges(registry, options.store, options.logger);
  if (options.store?.channels && options.store.subscriptions) {
    registerWatchGauges(registry, { channels: options.store.channels, subscriptions: options.store.subscriptions }, options.logger);
  }

  const metrics: BridgeMetrics = {
    inboundMessage: (source, outcome, reason) => inboundMessages.inc(reason === undefined ? { source, outcome } : { source, outcome, reason }),
    inboundNotifications: (source, counts) => {
      if (counts.acked > 0) inboundNotifications.inc({ source, outcome: 'acked' }, counts.acked);
      if (counts.duplicate > 0) inboundNotifications.inc({ source, outcome: 'duplicate' }, counts.duplicate);
    },
    inboundNotificationsRefused: (source, reason, count) => inboundNotifications.inc({ source, outcome: 'refused', reason }, count),
    inboundNotificationsIgnored: (source, reason, count) => inboundNotifications.inc({ source, outcome: 'ignored', reason }, count),
    inboundEventsReceived: (source, count) => inboundEventsReceived.inc({ source }, count),
    calendarUpkeep: (source, what) => calendarUpkeep.inc({ source, what }),
    calendarSync: (source, outcome) => calendarSyncs.inc({ source, outcome }),
    calendarLifecycle: (source, event) => calendarLifecycle.inc({ source, event }),
    jobsEnqueued: (kind, count) => {
      if (count > 0) jobsEnqueued.inc({ kind }, count);
    },
    jobFinished: (event) => {
      const { kind } = event;
      jobRuns.inc({ kind, outcome: event.recorded ? event.state : 'lease_lost' });
      if (event.attempt) {
        attempts.inc({ kind, status_class: statusClass(event.attempt) });
        attemptDuration.observe({ kind }, event.attempt.durationMs / 1000);
      }
    },
    jobsClaimed: (jobs, at) => {
      for (const job of jobs) {
        jobClaims.inc({ kind: job.kind });
        if (job.rateKey !== null) rateLimitWait.observe({ kind: job.kind }, Math.max(0, at - job.runAt) / 1000);
      }
    },
    mappingOutcome: (source, result, rule) => mappingOutcomes.inc({ source, result, rule }),
    readbackOutcome: (outcome, count) => {
      if (count > 0) readbacks.inc({ outcome }, count);
    },
    reconcileMeetings: (outcome, count) => {
      if (count > 0) reconciled.inc({ outcome }, count);
    },
  };
  return { metrics, exposition: { contentType: registry.contentType, render: () => registry.metrics() } };
}
