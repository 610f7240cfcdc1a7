/**
 * Watched calendars as an operator manages them at run time (`/admin/calendars`), whatever
 * provider watches them: the admin API talks to this interface, and each provider's folder
 * adapts its own watching to it. Times are epoch milliseconds.
 */

export interface CalendarWatch {
  calendarId: string;
  watching: boolean;
  /** `config` (from the settings) or `admin` (added at run time). */
  addedBy: string;
  /** Whether a completed sync left a token for incremental syncs. */
  hasSyncToken: boolean;
  /** The live push channel; null while none is open. */
  channel: { id: string; expiration: number; createdAt: number } | null;
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
