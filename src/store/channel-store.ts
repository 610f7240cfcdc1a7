/**
 * Durable state of Google Calendar watching (docs/protocols.md §3): which calendars are watched, their
 * incremental-sync token, their push channels, and a lease so that among several instances only
 * one creates and renews channels. Times are epoch milliseconds.
 */

export interface WatchedCalendar {
  calendarId: string;
  watching: boolean;
  /** `config` (GOOGLE_CALENDAR_IDS) or `admin` (added at run time). */
  addedBy: string;
  /** The last nextSyncToken of a sync that completed; null until the first full sync. */
  syncToken: string | null;
  /** When the last sync completed; null until one has. */
  lastSyncAt: number | null;
  /** Why the last sync or watch attempt failed; null once a sync succeeds. */
  lastError: string | null;
  updatedAt: number;
}

export interface Channel {
  id: string;
  calendarId: string;
  /** Sent back by Google in X-Goog-Channel-Token; compared in constant time. */
  token: string;
  resourceId: string | null;
  expiration: number;
  createdAt: number;
  /** When a newer channel replaced this one. */
  renewedAt: number | null;
  stoppedAt: number | null;
}

export interface ChannelStore {
  /** Adds the calendar (or turns watching back on); keeps its sync token. */
  watchCalendar(calendarId: string, addedBy: string, now: number): Promise<WatchedCalendar>;
  /** Turns watching off; its channels are stopped by the caller. */
  unwatchCalendar(calendarId: string, now: number): Promise<boolean>;
  /** Adds config calendars not seen before; a calendar an operator stopped stays stopped. */
  seedCalendars(calendarIds: readonly string[], now: number): Promise<void>;
  getCalendar(calendarId: string): Promise<WatchedCalendar | undefined>;
  listCalendars(): Promise<WatchedCalendar[]>;
  /** Null drops the token (after 410 Gone): the next sync is a full one. */
  setSyncToken(calendarId: string, syncToken: string | null, now: number): Promise<void>;
  /** The outcome of a sync (`syncedAt`, which clears the last error) or of a failed sync or watch (`error`). */
  recordCalendarOutcome(calendarId: string, outcome: { syncedAt: number } | { error: string }, now: number): Promise<void>;

  saveChannel(channel: Channel): Promise<void>;
  getChannel(id: string): Promise<Channel | undefined>;
  /** Channels neither stopped nor replaced, oldest first. */
  activeChannels(): Promise<Channel[]>;
  markRenewed(id: string, now: number): Promise<void>;
  stopChannel(id: string, now: number): Promise<void>;

  /**
   * Takes or extends the lease `name` for `owner` until now + ttlMs when it is free, expired or
   * already this owner's. Atomic across instances sharing the database.
   */
  tryLease(name: string, owner: string, ttlMs: number, now: number): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;
}
