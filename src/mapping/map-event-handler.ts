import type { Logger } from '../core/logger.ts';
import type { HandlerResult, JobHandler } from '../jobs/types.ts';
import { touchesOf } from '../matching/touches.ts';
import type { MatchRecord } from '../matching/types.ts';
import type { MappingMetrics } from '../metrics/bridge-metrics.ts';
import { importJob, remapJob } from '../momentum/delivery-jobs.ts';
import { meetingCoalesceKey } from '../momentum/remap-coalesce-key.ts';
import type { InboundEvent, Inbox, JobQueue, Matches, MeetingPin, Meetings, NewJob, NewMatchRecord, ResolvedMeeting } from '../store/types.ts';
import { applyPin } from './apply-pin.ts';
import { type EventMapper, LookupError, UnmappableEventError } from './event-mapper.ts';
import { nameImportedMeeting } from './imported-meeting.ts';
import { mapEventKind } from './map-event-job.ts';
import type { MappingOutcome } from './mapping-outcome.ts';
import { sourceStateOf } from './meeting-identity.ts';

export interface MapEventHandlerDeps {
  /** `lastSucceeded`: whether a recording of the meeting was imported (imported-meeting.ts). */
  store: Pick<Inbox, 'getEvent'> & Pick<JobQueue, 'lastSucceeded'> & Matches & Meetings;
  logger: Logger;
  /** The mapper of each event source, by InboundEvent.source (`salesforce`, `google`, `calendar`): each integration brings its own. */
  mappers: Readonly<Record<string, EventMapper>>;
  /** Counts each mapping decision by source, result and the rule that matched. */
  metrics?: MappingMetrics;
  /**
   * What else an event of a source sets off, by InboundEvent.source, enqueued with its outcome:
   * a Salesforce record that changed re-checks the meetings whose match looked at it.
   */
  followUps?: Readonly<Record<string, (event: InboundEvent) => Promise<NewJob[]>>>;
}

const dead = (reason: string, eventId?: number): HandlerResult => ({
  kind: 'final',
  state: 'dead',
  reason,
  ...(eventId === undefined ? {} : { eventUpdate: { eventId, state: 'failed' as const, reason } }),
});

/**
 * The `map-event` job (payload {eventId}): loads the stored inbound event, maps it with the mapper
 * of its source, resolves which meeting it is (docs/calendars.md, "One meeting across sources"),
 * and either enqueues the remap (coalesced on the meeting) and marks the event `mapped`, or marks
 * it `skipped` with the reason, cancelling what is pending for a meeting its source cancelled —
 * in the same transaction as the job's outcome.
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
    const followUp = Object.hasOwn(deps.followUps ?? {}, event.source) ? deps.followUps![event.source] : undefined;
    const more = followUp === undefined ? [] : await followUp(event);
    const identity = job.serialKey === null ? undefined : sourceStateOf(event, job.serialKey, outcome);
    const meeting = identity === undefined ? undefined : await deps.store.meetings.resolve(identity, context.now());
    const meetingId = meeting === undefined ? {} : { meetingId: meeting.meetingId };
    // The match record of this run, kept with its outcome: read back as "why this record".
    const matchRecord =
      outcome.match === undefined || job.serialKey === null ? {} : { matchRecord: storedMatch(eventId, job.serialKey, outcome.match, meeting?.meetingId) };
    if (outcome.kind === 'skipped') {
      context.logger.debug('inbound event skipped', { eventId, reason: outcome.reason, ...meetingId });
      // A cancellation older than a state already recorded for its source (a late retry) cancels nothing.
      const cancel =
        outcome.cancelled === true && meeting !== undefined && !meeting.stale ? { cancelPending: cancellation(meeting, eventId, outcome.sourceVersion) } : {};
      return {
        kind: 'final',
        state: 'skipped',
        reason: outcome.reason,
        ...(meeting === undefined ? {} : { result: meetingId }),
        eventUpdate: { eventId, state: 'skipped', reason: outcome.reason },
        ...matchRecord,
        ...cancel,
        ...(more.length > 0 ? { enqueue: more } : {}),
      };
    }
    const priority = outcome.kind === 'remap' && outcome.priority !== undefined ? { priority: outcome.priority } : {};
    const options = { eventId, ...(outcome.sourceVersion === undefined ? {} : { sourceVersion: outcome.sourceVersion }) };
    const delivery =
      outcome.kind === 'remap'
        ? remapJob(meeting === undefined ? outcome.request : await nameImportedMeeting(outcome.request, meeting.importedIds, deps.store), outcome.flags, {
            ...options,
            ...meetingId,
            ...priority,
          })
        : importJob(outcome.request, options);
    context.logger.debug('inbound event mapped', { eventId, kind: delivery.kind, coalesceKey: delivery.coalesceKey, ...meetingId });
    // A note (what the mapping left out) is the mapped event's reason: the delivery's page shows it.
    const note = outcome.kind === 'import' ? outcome.note : undefined;
    return {
      kind: 'succeeded',
      result: { kind: delivery.kind, coalesceKey: delivery.coalesceKey ?? null, ...meetingId, ...(note === undefined ? {} : { note }) },
      enqueue: [delivery, ...more],
      ...matchRecord,
      eventUpdate: { eventId, state: 'mapped', ...(note === undefined ? {} : { reason: note }) },
    };
  });
}

/** What a cancellation cancels: the pending remap of the meeting, and of every meeting joined into it. */
const cancellation = (meeting: ResolvedMeeting, eventId: number, sourceVersion: number | undefined) => ({
  coalesceKeys: [meeting.meetingId, ...meeting.absorbedIds].map(meetingCoalesceKey),
  reason: `cancelled: the meeting was cancelled at its source (inbound event ${eventId})`,
  version: { sourceVersion: sourceVersion ?? null, eventId },
});

const pinOf = (pin: MeetingPin) => ({ records: pin.records, by: pin.pinnedBy, at: new Date(pin.pinnedAt).toISOString(), reason: pin.reason });

export const storedMatch = (eventId: number, meetingKey: string, match: MatchRecord, meetingId?: number): NewMatchRecord => ({
  eventId,
  meetingKey,
  ...(meetingId === undefined ? {} : { meetingId }),
  outcome: match.outcome,
  rule: match.rule,
  summary: match.summary,
  record: match,
  touches: touchesOf(match),
});
