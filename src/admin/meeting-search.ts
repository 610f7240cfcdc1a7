import type { MeetingActivity } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import { meetingFacts } from './matches.ts';
import type { MeetingHit, MeetingSearchQuery } from './meeting-schemas.ts';
import { meetingSourcesOf } from './meeting-sources.ts';
import { DELIVERY_KINDS } from './request-schemas.ts';
import { iso } from './views.ts';

/**
 * "What happened to meeting X?" (`GET /admin/meetings?q=`, docs/operations.md): the text is looked
 * up in the two search documents, inbound events (event_search: skipped and refused ones too, and
 * the Salesforce ids of their match records) and deliveries (job_search), each through its trigram
 * index, newest first; each hit leads by its event to the meeting key of the event's map-event
 * job, and the meetings found are answered with what each left behind. A manual delivery (no
 * event) and an event of no source record belong to no meeting page: /admin/deliveries?q= and
 * /admin/events?q= find them.
 */

/** Hits read from each document: the newest, which name at most this many meetings. */
const HITS_MAX = 200;

type Found = 'event' | 'delivery';

export async function searchMeetings(store: AdminStore, query: MeetingSearchQuery): Promise<{ items: MeetingHit[]; more: boolean }> {
  const [events, deliveries] = await Promise.all([
    store.listEvents({ textSearch: query.q, limit: HITS_MAX }),
    store.listJobs({ kinds: DELIVERY_KINDS, textSearch: query.q, limit: HITS_MAX }),
  ]);
  const hits = [
    ...events.map((event) => ({ eventId: event.id, at: event.receivedAt, found: 'event' as Found })),
    ...deliveries.flatMap((job) => (job.eventId === null ? [] : [{ eventId: job.eventId, at: job.createdAt, found: 'delivery' as Found }])),
  ].sort((a, b) => b.at - a.at);
  const keys = await store.meetingKeysOf([...new Set(hits.map((hit) => hit.eventId))]);
  const found = new Map<string, Set<Found>>();
  let more = events.length === HITS_MAX || deliveries.length === HITS_MAX;
  for (const hit of hits) {
    const key = keys.get(hit.eventId);
    if (key === undefined) continue;
    if (!found.has(key) && found.size === query.limit) more = true;
    else found.set(key, (found.get(key) ?? new Set()).add(hit.found));
  }
  const activity = await store.meetingActivity([...found.keys()]);
  const items = await Promise.all(activity.map((meeting) => meetingHit(store, meeting, found.get(meeting.meetingKey) ?? new Set())));
  return { items: items.sort((a, b) => (b.lastActivityAt ?? '').localeCompare(a.lastActivityAt ?? '')), more };
}

async function meetingHit(store: AdminStore, meeting: MeetingActivity, foundIn: Set<Found>): Promise<MeetingHit> {
  const [identity, newest] = await Promise.all([
    meetingSourcesOf(store, meeting.meetingKey),
    meeting.newestEventId === null ? undefined : store.getEvent(meeting.newestEventId),
  ]);
  const facts = meetingFacts(newest);
  const source = identity.sources.find((item) => item.meetingKey === meeting.meetingKey);
  return {
    meetingKey: meeting.meetingKey,
    meetingId: identity.meetingId,
    title: facts.title ?? source?.title ?? null,
    start: facts.start ?? source?.start ?? null,
    sources:
      identity.sources.length > 0
        ? identity.sources.map((item) => ({ meetingKey: item.meetingKey, source: item.source }))
        : newest === undefined
          ? []
          : [{ meetingKey: meeting.meetingKey, source: newest.source }],
    lastActivityAt: meeting.lastActivityAt === null ? null : iso(meeting.lastActivityAt),
    counts: { events: meeting.events, deliveries: meeting.deliveries, matches: meeting.matches },
    foundIn: (['event', 'delivery'] as const).filter((where) => foundIn.has(where)),
  };
}
