import { AppError } from '../core/errors.ts';
import type { InboundEvent, MeetingPin, StoredMatch } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import { decodeCursor, pageOf } from './cursor.ts';
import { eventFacts } from './event-facts.ts';
import type { MatchView } from './match-view-schema.ts';
import type { MatchListQuery, MatchQueueItem, MeetingDetail, PinView } from './meeting-schemas.ts';
import { meetingSourcesOf } from './meeting-sources.ts';
import { meetingTimeline, timelineCut } from './meeting-timeline.ts';
import { deliveredOf } from './readback-view.ts';
import { DELIVERY_KINDS } from './request-schemas.ts';
import { deliverySummary, eventSummary, iso } from './views.ts';

/** "Why this record?": stored match records as the admin API shows them, a meeting's page and the match queue. */

const MEETING_PAGE_MAX = 50;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const listAt = (value: Record<string, unknown>, key: string): unknown[] => (Array.isArray(value[key]) ? value[key] : []);

/** A stored record as written by src/matching, its row's columns winning; a record no longer of that shape still shows its row. */
export function matchView(stored: StoredMatch): MatchView {
  const record = isRecord(stored.record) ? stored.record : {};
  return {
    ...record,
    id: stored.id,
    meetingKey: stored.meetingKey,
    eventId: stored.eventId,
    meetingId: stored.meetingId,
    createdAt: iso(stored.createdAt),
    outcome: stored.outcome as MatchView['outcome'],
    rule: stored.rule,
    summary: stored.summary,
    records: isRecord(record.records) ? (record.records as MatchView['records']) : {},
    attendees: listAt(record, 'attendees'),
    accounts: listAt(record, 'accounts'),
    candidates: listAt(record, 'candidates') as MatchView['candidates'],
    tried: listAt(record, 'tried') as string[],
  };
}

/** The match record that made what was stored for `eventId` at `at` (a delivery), or its newest (an event). */
export async function matchOf(store: Pick<AdminStore, 'matches'>, eventId: number | null, at?: number): Promise<MatchView | null> {
  if (eventId === null) return null;
  const stored = await store.matches.matchFor(eventId, at);
  return stored === undefined ? null : matchView(stored);
}

/** What an operator knows a meeting by, read from its stored event (calendar events and recordings carry both). */
export const meetingFacts = (event: InboundEvent | undefined): { title: string | null; start: string | null } => eventFacts(event?.parsedPayload);

export const pinView = (pin: MeetingPin): PinView => ({
  meetingKey: pin.meetingKey,
  records: pin.records,
  pinnedBy: pin.pinnedBy,
  reason: pin.reason,
  pinnedAt: iso(pin.pinnedAt),
});

/** The meeting's newest event, or 404: a key no event has is no meeting this bridge knows. */
export async function newestEventOf(store: Pick<AdminStore, 'listEvents'>, meetingKey: string): Promise<InboundEvent> {
  const [event] = await store.listEvents({ meetingKey, limit: 1 });
  if (event === undefined) throw new AppError('not_found', `no inbound event belongs to meeting ${meetingKey}`, { status: 404 });
  return event;
}

/** A meeting's page: its title and start, its pin, its match records, its events and their deliveries, each newest first, and all of them as one timeline. */
export async function meetingDetail(store: AdminStore, meetingKey: string): Promise<MeetingDetail> {
  const newest = await newestEventOf(store, meetingKey);
  const [identity, pin, matches, events, deliveries] = await Promise.all([
    meetingSourcesOf(store, meetingKey),
    store.matches.getPin(meetingKey),
    store.matches.meetingMatches(meetingKey, MEETING_PAGE_MAX),
    store.listEvents({ meetingKey, limit: MEETING_PAGE_MAX }),
    store.listJobs({ kinds: DELIVERY_KINDS, meetingKey, limit: MEETING_PAGE_MAX }),
  ]);
  const [delivered, attempts] = await Promise.all([
    deliveredOf(store, deliveries),
    Promise.all(deliveries.map(async (job) => [job.id, await store.getAttempts(job.id)] as const)),
  ]);
  // A cancellation stub may carry no title: the newest event that has one names the meeting, else its source record.
  const facts = events.map(meetingFacts);
  const source = identity.sources.find((item) => item.meetingKey === meetingKey);
  const from = timelineCut(
    [events.map((event) => event.receivedAt), matches.map((match) => match.createdAt), deliveries.map((job) => job.createdAt)],
    MEETING_PAGE_MAX,
  );
  return {
    meetingKey,
    ...identity,
    title: facts.find((fact) => fact.title !== null)?.title ?? source?.title ?? null,
    start: meetingFacts(newest).start ?? source?.start ?? null,
    pin: pin === undefined ? null : pinView(pin),
    matches: matches.map(matchView),
    events: events.map(eventSummary),
    deliveries: deliveries.map((job) => deliverySummary(job, delivered.get(job.id))),
    timeline: meetingTimeline({ events, matches, deliveries, attempts: new Map(attempts), pin, ...(from === undefined ? {} : { from }) }),
    timelineFrom: from === undefined ? null : iso(from),
  };
}

/** Meetings whose newest match record has the outcome, newest first: the ambiguous queue an operator pins from. */
export async function listMatches(store: AdminStore, query: MatchListQuery): Promise<{ items: MatchQueueItem[]; nextCursor: string | null }> {
  const after = decodeCursor(query.cursor);
  const rows = await store.matches.latestByOutcome(query.outcome, query.limit + 1, after?.id);
  const shown = rows.slice(0, query.limit);
  const events = new Map((await Promise.all(shown.map((row) => store.getEvent(row.eventId)))).flatMap((event) => (event ? [[event.id, event]] : [])));
  return pageOf(
    rows,
    query.limit,
    (row) => ({ at: row.createdAt, id: row.id }),
    (row): MatchQueueItem => {
      const view = matchView(row);
      return {
        id: view.id,
        meetingKey: view.meetingKey,
        eventId: view.eventId,
        ...meetingFacts(events.get(row.eventId)),
        outcome: view.outcome,
        rule: view.rule,
        summary: view.summary,
        records: view.records,
        ...(view.policy === undefined ? {} : { policy: view.policy }),
        candidates: view.candidates,
        createdAt: view.createdAt,
      };
    },
  );
}
