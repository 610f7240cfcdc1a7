import { type AddCalendarOutcome, CALENDAR_PROVIDERS, type CalendarManager, type CalendarProvider, type CalendarWatch } from '../calendar/calendar-manager.ts';
import { AppError } from '../core/errors.ts';
import type { WatchedCalendarView } from './response-schemas.ts';

/** Watched calendars at run time, through each configured provider's calendar manager. */
export type CalendarManagers = Partial<Record<CalendarProvider, CalendarManager>>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const calendarView = (watch: CalendarWatch): WatchedCalendarView => ({
  provider: watch.provider,
  calendarId: watch.calendarId,
  watching: watch.watching,
  addedBy: watch.addedBy,
  hasSyncToken: watch.hasSyncToken,
  channel: watch.channel
    ? { id: watch.channel.id, expiration: new Date(watch.channel.expiration).toISOString(), createdAt: new Date(watch.channel.createdAt).toISOString() }
    : null,
  lastSyncAt: iso(watch.lastSyncAt),
  lastError: watch.lastError,
});

const configured = (managers: CalendarManagers) => CALENDAR_PROVIDERS.filter((provider) => managers[provider] !== undefined);

export async function listCalendars(managers: CalendarManagers): Promise<{ calendars: WatchedCalendarView[] }> {
  const lists = await Promise.all(configured(managers).map((provider) => managers[provider]!.list()));
  return { calendars: lists.flat().map(calendarView) };
}

/** The provider asked for, else the only one configured, else Google (the first one the bridge had). */
function managerFor(managers: CalendarManagers, provider: CalendarProvider | undefined): { provider: CalendarProvider; manager: CalendarManager } {
  const chosen = provider ?? (configured(managers).length === 1 ? configured(managers)[0]! : 'google');
  const manager = managers[chosen];
  if (manager === undefined) {
    throw new AppError('provider_not_configured', `${chosen} calendars are not configured on this bridge (configured: ${configured(managers).join(', ')})`, {
      status: 400,
    });
  }
  return { provider: chosen, manager };
}

/**
 * Adds the calendar. A refused watch is not thrown: the calendar is saved all the same, so the
 * caller logs the change before it answers with `refused` (a 502).
 */
export async function addCalendar(
  managers: CalendarManagers,
  calendarId: string,
  provider?: CalendarProvider,
): Promise<{ provider: CalendarProvider } & ({ calendar: WatchedCalendarView } | { refused: AppError })> {
  const chosen = managerFor(managers, provider);
  const outcome: AddCalendarOutcome = await chosen.manager.add(calendarId);
  if (outcome.kind === 'watching') return { provider: chosen.provider, calendar: calendarView(outcome.calendar) };
  return { provider: chosen.provider, refused: new AppError(outcome.code, `calendar saved, but ${outcome.reason}`, { status: 502 }) };
}

/** Stops watching it with the provider named, else with every provider that knows it. */
export async function removeCalendar(managers: CalendarManagers, calendarId: string, provider?: CalendarProvider): Promise<void> {
  const providers = provider === undefined ? configured(managers) : [managerFor(managers, provider).provider];
  let found = false;
  for (const name of providers) found = (await managers[name]!.remove(calendarId)) || found;
  if (!found) throw new AppError('not_found', `calendar ${calendarId} is not known`, { status: 404 });
}
