import { AppError } from '../core/errors.ts';
import { mapEventKind } from '../mapping/map-event-job.ts';
import { type Job, JOB_PRIORITY, type MeetingPin } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import { newestEventOf } from './matches.ts';
import type { PinBody } from './meeting-schemas.ts';

/**
 * An operator's pin (docs/admin-api.md, matching): the records a meeting is about, whatever the
 * rules find. The map-event handler reads it before every rule, so it holds for this mapping and
 * every later one. Setting or clearing it maps the meeting's newest event again at once.
 */

/** Who pinned, as the admin change log names the caller: the key's fingerprint, never the key. */
export const pinnedBy = (keyFingerprint: string): string => `admin key ${keyFingerprint}`;

/**
 * A new map-event job for the event, under the meeting's serial key: the handler reads the pin by
 * that key, and the job never runs beside another mapping of the same meeting.
 */
async function remapEvent(store: Pick<AdminStore, 'enqueue'>, eventId: number, meetingKey: string): Promise<Job> {
  const [job] = await store.enqueue([mapEventKind.job({ eventId }, { eventId, serialKey: meetingKey, priority: JOB_PRIORITY.operator })]);
  if (job === undefined) throw new Error(`enqueueing the mapping of event ${eventId} returned no job`);
  return job;
}

/** Stores the pin, then maps the meeting's newest event under it; 404 (nothing stored) for a key no event has. */
export async function pinMeeting(
  store: AdminStore,
  meetingKey: string,
  body: PinBody,
  keyFingerprint: string,
  now = Date.now(),
): Promise<{ pin: MeetingPin; job: Job }> {
  const event = await newestEventOf(store, meetingKey);
  const { reason, ...ids } = body;
  const records = Object.fromEntries(Object.entries(ids).filter(([, id]) => id !== undefined));
  const pin: MeetingPin = { meetingKey, records, pinnedBy: pinnedBy(keyFingerprint), reason: reason.trim(), pinnedAt: now };
  // The pin first: a mapping that ran before it was stored would match without it.
  await store.matches.setPin(pin);
  return { pin, job: await remapEvent(store, event.id, meetingKey) };
}

/** Clears the pin (404 when there is none) and maps the newest event again by the rules. */
export async function unpinMeeting(store: AdminStore, meetingKey: string): Promise<{ job: Job | undefined }> {
  if (!(await store.matches.clearPin(meetingKey))) throw new AppError('not_found', `meeting ${meetingKey} has no pin`, { status: 404 });
  const [event] = await store.listEvents({ meetingKey, limit: 1 });
  return { job: event === undefined ? undefined : await remapEvent(store, event.id, meetingKey) };
}

/** The serial key the event's first map-event job carried: a mapping run again keeps its meeting, and so its pin. */
export async function meetingKeyOf(store: Pick<AdminStore, 'listJobs'>, eventId: number): Promise<string | undefined> {
  const [first] = await store.listJobs({ eventId, kinds: [mapEventKind.name], order: 'oldest', limit: 1 });
  return first?.serialKey ?? undefined;
}
