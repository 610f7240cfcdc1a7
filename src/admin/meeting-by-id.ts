import { AppError } from '../core/errors.ts';
import type { StoredMeeting } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import { matchView, meetingFacts } from './matches.ts';
import type { MeetingById } from './meeting-schemas.ts';
import { sourceView } from './meeting-sources.ts';
import { deliveredOf } from './readback-view.ts';
import { DELIVERY_KINDS } from './request-schemas.ts';
import { deliverySummary, eventSummary } from './views.ts';

/** One meeting across its sources (docs/admin-api.md, the meeting page): every source record, and the match records, events and deliveries of all. */

const MEETING_PAGE_MAX = 50;

async function storedMeeting(store: Pick<AdminStore, 'meetings'>, id: number): Promise<StoredMeeting> {
  const meeting = await store.meetings.meeting(id);
  if (meeting === undefined) throw new AppError('not_found', `meeting ${id} does not exist`, { status: 404 });
  return meeting;
}

/** `GET /admin/meetings/by-id/:id`: the whole meeting, whichever systems its sources came from; 404 for an id never made. */
export async function meetingById(store: AdminStore, id: number): Promise<MeetingById> {
  const meeting = await storedMeeting(store, id);
  const [matches, events, deliveries] = await Promise.all([
    store.matches.matchesOfMeeting(meeting.id, MEETING_PAGE_MAX),
    store.listEvents({ meetingId: meeting.id, limit: MEETING_PAGE_MAX }),
    store.listJobs({ kinds: DELIVERY_KINDS, meetingId: meeting.id, limit: MEETING_PAGE_MAX }),
  ]);
  // A cancellation stub may carry no title: the newest event that has one names the meeting.
  const facts = events.map(meetingFacts);
  const delivered = await deliveredOf(store, deliveries);
  return {
    meetingId: meeting.id,
    absorbedIds: meeting.absorbedIds,
    title: facts.find((fact) => fact.title !== null)?.title ?? meeting.sources.find((source) => source.title !== null)?.title ?? null,
    start: facts.find((fact) => fact.start !== null)?.start ?? null,
    cancelled: meeting.sources.some((source) => source.cancelled),
    sources: meeting.sources.map(sourceView),
    matches: matches.map(matchView),
    events: events.map(eventSummary),
    deliveries: deliveries.map((job) => deliverySummary(job, delivered.get(job.id))),
  };
}
