import type { AddCalendarOutcome, CalendarManager, CalendarWatch } from '../calendar/calendar-manager.ts';
import { AppError } from '../core/errors.ts';
import type { WatchedCalendarView } from './response-schemas.ts';

/** Watched calendars at run time, through whichever provider's calendar manager the bridge runs. */

export const calendarView = (watch: CalendarWatch): WatchedCalendarView => ({
  calendarId: watch.calendarId,
  watching: watch.watching,
  addedBy: watch.addedBy,
  hasSyncToken: watch.hasSyncToken,
  channel: watch.channel
    ? { id: watch.channel.id, expiration: new Date(watch.channel.expiration).toISOString(), createdAt: new Date(watch.channel.createdAt).toISOString() }
    : null,
});

export async function listCalendars(manager: CalendarManager): Promise<{ calendars: WatchedCalendarView[] }> {
  return { calendars: (await manager.list()).map(calendarView) };
}

/**
 * Adds the calendar. A refused watch is not thrown: the calendar is saved all the same, so the
 * caller logs the change before it answers with `refused` (a 502).
 */
export async function addCalendar(manager: CalendarManager, calendarId: string): Promise<{ calendar: WatchedCalendarView } | { refused: AppError }> {
  const outcome: AddCalendarOutcome = await manager.add(calendarId);
  if (outcome.kind === 'watching') return { calendar: calendarView(outcome.calendar) };
  return { refused: new AppError(outcome.code, `calendar saved, but ${outcome.reason}`, { status: 502 }) };
}

export async function removeCalendar(manager: CalendarManager, calendarId: string): Promise<void> {
  if (!(await manager.remove(calendarId))) throw new AppError('not_found', `calendar ${calendarId} is not known`, { status: 404 });
}
