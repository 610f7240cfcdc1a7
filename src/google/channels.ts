import { randomBytes, randomUUID } from 'node:crypto';

import type { Logger } from '../core/logger.ts';
import { storableText } from '../core/storable.ts';
import type { Channel, ChannelStore, WatchedCalendar } from '../store/channel-store.ts';
import type { CalendarClient } from './calendar-client.ts';
import { GoogleApiError } from './google-api-error.ts';

export const NOTIFICATIONS_PATH = '/calendar/google/notifications';
// docs/protocols.md §3: there is no automatic renewal; a new channel is made before the old one expires.
const RENEW_AT_FRACTION = 0.8;

export interface ChannelManagerDeps {
  store: ChannelStore;
  client: CalendarClient;
  /** PUBLIC_BASE_URL: Google posts notifications to it + NOTIFICATIONS_PATH. */
  publicBaseUrl: string;
  /** GOOGLE_CHANNEL_TTL (Google may grant less; its expiration is what counts). */
  ttlMs: number;
  logger: Logger;
  now?: () => number;
}

export interface CalendarStatus extends WatchedCalendar {
  channel: Channel | undefined;
}

export interface ChannelManager {
  /** Every watched calendar ends with one live channel, renewed when due; unwatched ones have none. */
  maintain(): Promise<{ created: number; renewed: number; stopped: number; failed: number }>;
  addCalendar(calendarId: string): Promise<CalendarStatus>;
  removeCalendar(calendarId: string): Promise<boolean>;
  list(): Promise<CalendarStatus[]>;
}

export const renewalDue = (channel: Channel, now: number): boolean => now >= channel.createdAt + (channel.expiration - channel.createdAt) * RENEW_AT_FRACTION;

export function createChannelManager(deps: ChannelManagerDeps): ChannelManager {
  const { store, client, logger } = deps;
  const now = deps.now ?? Date.now;
  const address = `${deps.publicBaseUrl.replace(/\/+$/, '')}${NOTIFICATIONS_PATH}`;

  async function createChannel(calendarId: string): Promise<Channel> {
    // ≤ 64 characters (docs/protocols.md §3); a fresh id per channel, renewals included.
    const id = `bridge-${randomUUID()}`;
    // ≤ 256 characters; 256 random bits that Google echoes in X-Goog-Channel-Token.
    const token = randomBytes(32).toString('base64url');
    const createdAt = now();
    const answer = await client.watch(calendarId, { id, address, token, ttlSeconds: Math.max(1, Math.round(deps.ttlMs / 1000)) });
    const channel: Channel = {
      id,
      calendarId,
      token,
      resourceId: answer.resourceId,
      expiration: answer.expiration,
      createdAt,
      renewedAt: null,
      stoppedAt: null,
    };
    await store.saveChannel(channel);
    logger.info('google channel created', { channelId: id, calendarId, expiration: new Date(answer.expiration).toISOString() });
    return channel;
  }

  async function stopChannel(channel: Channel): Promise<void> {
    try {
      if (channel.resourceId !== null) await client.stop(channel.calendarId, { id: channel.id, resourceId: channel.resourceId });
    } catch (error) {
      // Already gone at Google (404) is what we wanted; anything else expires on its own at `expiration`.
      if (!(error instanceof GoogleApiError && error.kind === 'not_found')) {
        logger.warn('google channel stop failed; it expires on its own', { channelId: channel.id, error: (error as Error).message });
      }
    }
    await store.stopChannel(channel.id, now());
  }

  /** A refused watch is the calendar's last error until a sync succeeds; never lets its own failure hide the first. */
  async function recordWatchError(calendarId: string, error: unknown): Promise<void> {
    const message = storableText(error instanceof Error ? error.message : String(error)).slice(0, 1000);
    await store.recordCalendarOutcome(calendarId, { error: message }, now()).catch((recordFailure: unknown) => {
      logger.error('google watch failure not recorded on the calendar', { calendarId, error: (recordFailure as Error).message });
    });
  }

  async function maintainCalendar(calendar: WatchedCalendar, live: Channel[], counts: { created: number; renewed: number; stopped: number }) {
    if (!calendar.watching) {
      for (const channel of live) await stopChannel(channel);
      counts.stopped += live.length;
      return;
    }
    const [newest, ...older] = [...live].sort((a, b) => b.createdAt - a.createdAt);
    // More than one live channel (a crash mid-renewal): keep the newest.
    for (const channel of older) await stopChannel(channel);
    counts.stopped += older.length;
    if (newest === undefined) {
      await createChannel(calendar.calendarId);
      counts.created += 1;
    } else if (renewalDue(newest, now()) || newest.expiration <= now()) {
      // New channel first, then the old one stops: no window without notifications.
      await createChannel(calendar.calendarId);
      await store.markRenewed(newest.id, now());
      await stopChannel(newest);
      counts.renewed += 1;
    }
  }

  return {
    async maintain() {
      const counts = { created: 0, renewed: 0, stopped: 0, failed: 0 };
      const live = await store.activeChannels();
      const calendars = await store.listCalendars();
      const known = new Set(calendars.map((calendar) => calendar.calendarId));
      // Channels of calendars no longer on the list are stopped too.
      const orphans = live.filter((channel) => !known.has(channel.calendarId));
      const all = [
        ...calendars,
        ...[...new Set(orphans.map((channel) => channel.calendarId))].map((calendarId) => ({
          calendarId,
          watching: false,
          addedBy: 'unknown',
          syncToken: null,
          lastSyncAt: null,
          lastError: null,
          updatedAt: 0,
        })),
      ];
      for (const calendar of all) {
        try {
          await maintainCalendar(
            calendar,
            live.filter((channel) => channel.calendarId === calendar.calendarId),
            counts,
          );
        } catch (error) {
          // One calendar's failure (revoked delegation, 5xx) must not stop the others; the next round retries.
          counts.failed += 1;
          logger.error('google channel upkeep failed', { calendarId: calendar.calendarId, error: (error as Error).message });
          if (calendar.watching) await recordWatchError(calendar.calendarId, error);
        }
      }
      return counts;
    },
    async addCalendar(calendarId) {
      const calendar = await store.watchCalendar(calendarId, 'admin', now());
      const live = (await store.activeChannels()).filter((channel) => channel.calendarId === calendarId);
      try {
        await maintainCalendar(calendar, live, { created: 0, renewed: 0, stopped: 0 });
      } catch (error) {
        await recordWatchError(calendarId, error);
        throw error;
      }
      const channel = (await store.activeChannels()).find((item) => item.calendarId === calendarId);
      return { ...calendar, channel };
    },
    async removeCalendar(calendarId) {
      const found = await store.unwatchCalendar(calendarId, now());
      for (const channel of (await store.activeChannels()).filter((item) => item.calendarId === calendarId)) await stopChannel(channel);
      return found;
    },
    async list() {
      const live = await store.activeChannels();
      return (await store.listCalendars()).map((calendar) => ({ ...calendar, channel: live.find((channel) => channel.calendarId === calendar.calendarId) }));
    },
  };
}
