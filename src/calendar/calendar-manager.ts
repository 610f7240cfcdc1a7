/**
 * Watched calendars as an operator manages them at run time (`/admin/calendars`), whatever
 * provider watches them: the admin API talks to this interface, and each provider's folder
 * adapts its own watching to it. Times are epoch milliseconds.
 */

export const CALENDAR_PROVIDERS = ['google', 'microsoft'] as const;
export type CalendarProvider = (typeof CALENDAR_PROVIDERS)[number];

export interface CalendarWatch {
  provider: CalendarProvider;
  /** The calendar owner's email (Google) or the mailbox's UPN/email (Microsoft). */
  calendarId: string;
  watching: boolean;
  /** `config` (from the settings) or `admin` (added at run time). */
  addedBy: string;
  /** Whether a completed sync left a token (Google) or delta link (Microsoft) for incremental syncs. */
  hasSyncToken: boolean;
  /** The live push channel (Google) or subscription (Microsoft); null while none is open. */
  channel: { id: string; expiration: number; createdAt: number } | null;
  /** When the last sync completed, where the provider records it. */
  lastSyncAt: number | null;
  /** Why the last sync or watch attempt failed; null once one succeeds. */
  lastError: string | null;
}

export type AddCalendarOutcome =
  | { kind: 'watching'; calendar: CalendarWatch }
  /** Saved as watched, but the provider refused to start the watch: the next upkeep round tries again. */
  | { kind: 'watch_refused'; code: string; reason: string };

export interface CalendarManager {
  list(): Promise<CalendarWatch[]>;
  /** Saves the calendar as watched, then starts watching it. */
  add(calendarId: string): Promise<AddCalendarOutcome>;
  /** Stops watching; false when the calendar is not known. */
  remove(calendarId: string): Promise<boolean>;
}
