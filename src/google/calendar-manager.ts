import type { CalendarManager, CalendarWatch } from '../calendar/calendar-manager.ts';
import type { CalendarStatus, ChannelManager } from './channels.ts';
import { GoogleApiError } from './google-api-error.ts';

const watchOf = (status: CalendarStatus): CalendarWatch => ({
  provider: 'google',
  calendarId: status.calendarId,
  watching: status.watching,
  addedBy: status.addedBy,
  hasSyncToken: status.syncToken !== null,
  channel: status.channel ? { id: status.channel.id, expiration: status.channel.expiration, createdAt: status.channel.createdAt } : null,
  lastSyncAt: status.lastSyncAt,
  lastError: status.lastError,
});

/** Google's channel manager as the admin API's calendar manager. */
export function googleCalendarManager(channels: ChannelManager): CalendarManager {
  return {
    list: async () => (await channels.list()).map(watchOf),
    async add(calendarId) {
      try {
        return { kind: 'watching', calendar: watchOf(await channels.addCalendar(calendarId)) };
      } catch (error) {
        if (!(error instanceof GoogleApiError)) throw error;
        // addCalendar stored the calendar before the watch call: the backstop syncs it meanwhile.
        return { kind: 'watch_refused', code: 'google_watch_failed', reason: `Google refused the watch: ${error.message}` };
      }
    },
    remove: (calendarId) => channels.removeCalendar(calendarId),
  };
}
