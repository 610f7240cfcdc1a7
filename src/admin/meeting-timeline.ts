import { z } from 'zod';

import type { Attempt, InboundEvent, Job, MeetingPin, StoredMatch } from '../store/types.ts';
import { eventFacts } from './event-facts.ts';
import { MATCH_OUTCOMES } from './match-view-schema.ts';
import { EVENT_STATES, JOB_STATES } from './request-schemas.ts';
import { iso } from './views.ts';

/**
 * A meeting's timeline (GET /admin/meetings/:key): everything it left behind as one list of typed
 * entries, newest first: each inbound event, each match record, each delivery and replay and each
 * of their attempts, and the operator's pin. Entries at the same millisecond show the later step
 * of the chain first (an attempt before the delivery it tried, a match before its event).
 */

const time = z.string().meta({ description: 'ISO 8601, UTC' });
const id = z.int().positive();
const delivery = {
  at: time,
  deliveryId: id,
  number: id.nullable(),
  kind: z.string(),
  state: z.enum(JOB_STATES),
  eventId: id.nullable(),
  lastError: z.string().nullable(),
};

export const timelineEntrySchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('event'),
    at: time,
    eventId: id,
    source: z.string(),
    state: z.enum(EVENT_STATES),
    reason: z.string().nullable(),
    title: z.string().nullable(),
  }),
  z.object({ type: z.literal('match'), at: time, matchId: id, eventId: id, outcome: z.enum(MATCH_OUTCOMES), rule: z.string(), summary: z.string() }),
  z.object({ type: z.literal('delivery'), ...delivery }),
  z.object({ type: z.literal('replay'), ...delivery, replayOf: id.meta({ description: 'The delivery it replays' }) }),
  z.object({
    type: z.literal('attempt'),
    at: time,
    attemptId: id,
    deliveryId: id,
    number: id.nullable(),
    status: z.int().nullable(),
    errorClass: z.string().nullable(),
    error: z.string().nullable(),
    durationMs: z.int(),
  }),
  z.object({
    type: z.literal('pin'),
    at: time,
    records: z.object({ opportunityId: z.string().optional(), accountId: z.string().optional(), leadId: z.string().optional() }),
    pinnedBy: z.string(),
    reason: z.string(),
  }),
]);

export type TimelineEntry = z.infer<typeof timelineEntrySchema>;

/** At one millisecond, the later step of the chain first. */
const RANK: Record<TimelineEntry['type'], number> = { pin: 5, attempt: 4, replay: 3, delivery: 3, match: 2, event: 1 };

type Dated = { entry: TimelineEntry; at: number; id: number };

const deliveryEntry = (job: Job): Dated => {
  const fields = {
    at: iso(job.createdAt),
    deliveryId: job.id,
    number: job.deliveryNo,
    kind: job.kind,
    state: job.state,
    eventId: job.eventId,
    lastError: job.lastError,
  };
  const entry: TimelineEntry = job.replayOf === null ? { type: 'delivery', ...fields } : { type: 'replay', ...fields, replayOf: job.replayOf };
  return { entry, at: job.createdAt, id: job.id };
};

const attemptEntry = (job: Job, attempt: Attempt): Dated => ({
  entry: {
    type: 'attempt',
    at: iso(attempt.startedAt),
    attemptId: attempt.id,
    deliveryId: job.id,
    number: job.deliveryNo,
    status: attempt.status ?? null,
    errorClass: attempt.errorClass ?? null,
    error: attempt.responseExcerpt ?? null,
    durationMs: attempt.durationMs,
  },
  at: attempt.startedAt,
  id: attempt.id,
});

export interface TimelineInput {
  events: readonly InboundEvent[];
  matches: readonly StoredMatch[];
  deliveries: readonly Job[];
  /** Each delivery's attempts, by its id. */
  attempts: ReadonlyMap<number, readonly Attempt[]>;
  pin: MeetingPin | undefined;
  /** Entries older than this (epoch ms) are left out: the lists were cut there, and older entries of one list without the others would mislead. */
  from?: number;
}

/**
 * Where a meeting's timeline starts when any of its lists was cut at `limit` (newest first): the
 * newest of the cut lists' oldest times, so every list is whole from there on. Undefined: nothing
 * was cut.
 */
export function timelineCut(lists: ReadonlyArray<readonly number[]>, limit: number): number | undefined {
  const cuts = lists.filter((times) => times.length >= limit).map((times) => Math.min(...times));
  return cuts.length === 0 ? undefined : Math.max(...cuts);
}

export function meetingTimeline(input: TimelineInput): TimelineEntry[] {
  const dated: Dated[] = [
    ...input.events.map((event): Dated => ({
      entry: {
        type: 'event',
        at: iso(event.receivedAt),
        eventId: event.id,
        source: event.source,
        state: event.state,
        reason: event.stateReason,
        title: eventFacts(event.parsedPayload).title,
      },
      at: event.receivedAt,
      id: event.id,
    })),
    ...input.matches.map((match): Dated => ({
      entry: {
        type: 'match',
        at: iso(match.createdAt),
        matchId: match.id,
        eventId: match.eventId,
        // The store keeps what matching wrote; matching writes only these outcomes.
        outcome: match.outcome as (typeof MATCH_OUTCOMES)[number],
        rule: match.rule,
        summary: match.summary,
      },
      at: match.createdAt,
      id: match.id,
    })),
    ...input.deliveries.flatMap((job) => [deliveryEntry(job), ...(input.attempts.get(job.id) ?? []).map((attempt) => attemptEntry(job, attempt))]),
    ...(input.pin === undefined
      ? []
      : [
          {
            entry: { type: 'pin', at: iso(input.pin.pinnedAt), records: input.pin.records, pinnedBy: input.pin.pinnedBy, reason: input.pin.reason },
            at: input.pin.pinnedAt,
            id: 0,
          } satisfies Dated,
        ]),
  ];
  const from = input.from;
  return dated
    .filter((item) => from === undefined || item.at >= from)
    .sort((a, b) => b.at - a.at || RANK[b.entry.type] - RANK[a.entry.type] || b.id - a.id)
    .map((item) => item.entry);
}
