import type { MeetingSource } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import type { MeetingSourceView } from './meeting-schemas.ts';
import { iso } from './views.ts';

/** The sources of a meeting as the admin API shows them: every record (a calendar event, a Salesforce Event, a recording) that is one meeting. */

export const sourceView = (source: MeetingSource): MeetingSourceView => ({
  meetingKey: source.recordKey,
  source: source.source,
  start: source.startAt === null ? null : iso(source.startAt),
  host: source.host,
  title: source.title,
  cancelled: source.cancelled,
  importedId: source.importedId,
  eventId: source.eventId,
  firstSeenAt: iso(source.createdAt),
  updatedAt: iso(source.updatedAt),
});

/** The meeting a source key is part of, with every source of it; none before the key was first mapped. */
export async function meetingSourcesOf(
  store: Pick<AdminStore, 'meetings'>,
  meetingKey: string,
): Promise<{ meetingId: number | null; sources: MeetingSourceView[] }> {
  const id = await store.meetings.meetingOfRecord(meetingKey);
  const meeting = id === undefined ? undefined : await store.meetings.meeting(id);
  return meeting === undefined ? { meetingId: null, sources: [] } : { meetingId: meeting.id, sources: meeting.sources.map(sourceView) };
}
