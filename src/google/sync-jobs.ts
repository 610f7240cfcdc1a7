import { z } from 'zod';

import { defineJobKind } from '../jobs/job-kind.ts';
import type { ChannelStore } from '../store/channel-store.ts';
import type { Job, JobQueue, NewJob } from '../store/types.ts';

export const calendarSyncPayloadSchema = z.object({
  calendarId: z.string().min(1),
  channelId: z.string().optional(),
  /** What asked for it: a push notification, the periodic backstop, an operator. */
  trigger: z.enum(['push', 'backstop', 'admin']),
});

export type CalendarSyncPayload = z.infer<typeof calendarSyncPayloadSchema>;

/**
 * `calendar-sync`: one incremental sync of a Google calendar. Coalesced per channel: a burst of
 * notifications while a sync is pending becomes that one sync (docs/protocols.md §3: the push
 * says "something changed", not what).
 */
export const calendarSyncKind = defineJobKind('calendar-sync', calendarSyncPayloadSchema, {
  fieldsOf: (payload) => ({ coalesceKey: `calendar-sync:${payload.channelId ?? `calendar:${payload.calendarId}`}` }),
  invalid: () => ({ kind: 'final', state: 'dead', reason: 'invalid calendar-sync payload: expected {calendarId, channelId?, trigger}' }),
});

export const CALENDAR_SYNC_JOB = calendarSyncKind.name;

export const calendarSyncJob = (payload: CalendarSyncPayload): NewJob => calendarSyncKind.job(payload);

/**
 * The backstop (docs/protocols.md §3: notifications can be dropped): one sync per watched calendar, on
 * its live channel's key, or on the calendar's own key when it has no channel (watch failing).
 */
export async function enqueueBackstopSyncs(channels: ChannelStore, jobs: Pick<JobQueue, 'enqueue'>): Promise<Job[]> {
  const live = await channels.activeChannels();
  const calendars = (await channels.listCalendars()).filter((calendar) => calendar.watching);
  const wanted = calendars.map((calendar) =>
    calendarSyncJob({
      calendarId: calendar.calendarId,
      channelId: live.find((channel) => channel.calendarId === calendar.calendarId)?.id,
      trigger: 'backstop',
    }),
  );
  return wanted.length === 0 ? [] : jobs.enqueue(wanted);
}
