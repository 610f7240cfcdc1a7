import type { Logger } from '../core/logger.ts';
import type { HandlerResult, JobHandler } from '../jobs/types.ts';
import type { MatchRecord } from '../matching/types.ts';
import type { MappingMetrics } from '../metrics/bridge-metrics.ts';
import { importJob, remapJob } from '../momentum/delivery-jobs.ts';
import type { Inbox, Matches, MeetingPin, NewMatchRecord } from '../store/types.ts';
import { applyPin } from './apply-pin.ts';
import { type EventMapper, LookupError, UnmappableEventError } from './event-mapper.ts';
import { mapEventKind } from './map-event-job.ts';
import type { MappingOutcome } from './mapping-outcome.ts';

export interface MapEventHandlerDeps {
  store: Pick<Inbox, 'getEvent'> & Matches;
  logger: Logger;
  /** The mapper of each event source, by InboundEvent.source (`salesforce`, `google`, `calendar`): each integration brings its own. */
  mappers: Readonly<Record<string, EventMapper>>;
  /** Counts each mapping decision by source, result and the rule that matched. */
  metrics?: MappingMetrics;
}

const dead = (reason: string, eventId?: number): HandlerResult => ({
  kind: 'final',
  state: 'dead',
  reason,
  ...(eventId === undefined ? {} : { eventUpdate: { eventId, state: 'failed' as const, reason } }),
});

/**
 * The `map-event` job (payload {eventId}): loads the stored inbound event, maps it with the mapper
 * of its source, and either enqueues the remap (coalesced on the meeting) and marks the event
 * `mapped`, or marks it `skipped` with the reason — in the same transaction as the job's outcome.
 */
export function createMapEventHandler(deps: MapEventHandlerDeps): JobHandler {
  const { mappers } = deps;
  deps.logger.debug('map-event handler ready', { sources: Object.keys(mappers) });

  const count: MappingMetrics['mappingOutcome'] = (source, result, rule) => deps.metrics?.mappingOutcome(source, result, rule);

  return mapEventKind.handler(async ({ eventId }, job, context) => {
    const event = await deps.store.getEvent(eventId);
    if (event === undefined) return dead(`inbound event ${eventId} does not exist`);
    const mapper = Object.hasOwn(mappers, event.source) ? mappers[event.source] : undefined;
    if (mapper === undefined) {
      count(event.source, 'failed', 'none');
      return dead(`no mapper for inbound events from source "${event.source}"`, eventId);
    }

    const startedAt = context.now();
    let outcome: MappingOutcome;
    try {
      const stored = job.serialKey === null ? undefined : await deps.store.matches.getPin(job.serialKey);
      const pin = stored === undefined ? undefined : pinOf(stored);
      outcome = applyPin(await mapper(event, { logger: context.logger, signal: context.signal, ...(pin === undefined ? {} : { pin }) }), pin);
    } catch (error) {
      if (error instanceof LookupError) {
        count(event.source, 'lookup_failed', 'none');
        // Never dropped: a lookup that failed (the CRM, a recording tool's API) is retried on the worker's schedule.
        return {
          kind: 'retryable',
          error: error.message,
          ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
          attempt: { startedAt, durationMs: context.now() - startedAt, errorClass: error.errorClass, responseExcerpt: error.message.slice(0, 4096) },
        };
      }
      if (error instanceof UnmappableEventError) {
        count(event.source, 'failed', 'none');
        return dead(error.message, eventId);
      }
      throw error; // anything else is a bug: the worker retries it and logs it
    }

    count(event.source, outcome.kind, outcome.kind === 'skipped' ? 'none' : (outcome.rule ?? 'unnamed'));
    // The match record of this run, kept with its outcome: read back as "why this record".
    const matchRecord = outcome.match === undefined || job.serialKey === null ? {} : { matchRecord: storedMatch(eventId, job.serialKey, outcome.match) };
    if (outcome.kind === 'skipped') {
      context.logger.debug('inbound event skipped', { eventId, reason: outcome.reason });
      return { kind: 'final', state: 'skipped', reason: outcome.reason, eventUpdate: { eventId, state: 'skipped', reason: outcome.reason }, ...matchRecord };
    }
    const version = outcome.sourceVersion === undefined ? {} : { sourceVersion: outcome.sourceVersion };
    const priority = outcome.kind === 'remap' && outcome.priority !== undefined ? { priority: outcome.priority } : {};
    const delivery =
      outcome.kind === 'remap'
        ? remapJob(outcome.request, outcome.flags, { eventId, ...version, ...priority })
        : importJob(outcome.request, { eventId, ...version });
    context.logger.debug('inbound event mapped', { eventId, kind: delivery.kind, coalesceKey: delivery.coalesceKey });
    // A note (what the mapping left out) is the mapped event's reason: the delivery's page shows it.
    const note = outcome.kind === 'import' ? outcome.note : undefined;
    return {
      kind: 'succeeded',
      result: { kind: delivery.kind, coalesceKey: delivery.coalesceKey ?? null, ...(note === undefined ? {} : { note }) },
      enqueue: [delivery],
      ...matchRecord,
      eventUpdate: { eventId, state: 'mapped', ...(note === undefined ? {} : { reason: note }) },
    };
  });
}

const pinOf = (pin: MeetingPin) => ({ records: pin.records, by: pin.pinnedBy, at: new Date(pin.pinnedAt).toISOString(), reason: pin.reason });

const storedMatch = (eventId: number, meetingKey: string, match: MatchRecord): NewMatchRecord => ({
  eventId,
  meetingKey,
  outcome: match.outcome,
  rule: match.rule,
  summary: match.summary,
  record: match,
});
