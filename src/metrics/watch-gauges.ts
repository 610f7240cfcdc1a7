import { Gauge, type Registry } from 'prom-client';

import type { Logger } from '../core/logger.ts';
import type { ChannelStore } from '../store/channel-store.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';

export const WATCH_STATES = ['live', 'expired', 'missing', 'stopped'] as const;
type WatchState = (typeof WATCH_STATES)[number];

/** Each watched calendar's state: a live channel or subscription, an expired one, none yet, or watching stopped. */
function stateOf(watching: boolean, expiration: number | undefined, now: number): WatchState {
  if (!watching) return 'stopped';
  if (expiration === undefined) return 'missing';
  return expiration > now ? 'live' : 'expired';
}

/**
 * `bridge_calendar_watches{source, state}`, read from the store at scrape time: how many Google
 * calendars and Microsoft 365 mailboxes have a live channel or subscription, an expired one, none,
 * or are stopped. The same on every instance of one database.
 */
export function registerWatchGauges(registry: Registry, stores: { channels: ChannelStore; subscriptions: SubscriptionStore }, logger: Logger): void {
  new Gauge({
    name: 'bridge_calendar_watches',
    help: 'Watched calendars by source (google, microsoft) and the state of their channel or subscription (live, expired, missing, stopped)',
    labelNames: ['source', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      const now = Date.now();
      try {
        const [calendars, channels, mailboxes, subscriptions] = await Promise.all([
          stores.channels.listCalendars(),
          stores.channels.activeChannels(),
          stores.subscriptions.listMailboxes(),
          stores.subscriptions.activeSubscriptions(),
        ]);
        const counts = { google: new Map<WatchState, number>(), microsoft: new Map<WatchState, number>() };
        for (const calendar of calendars) {
          const expiration = channels.find((channel) => channel.calendarId === calendar.calendarId)?.expiration;
          const state = stateOf(calendar.watching, expiration, now);
          counts.google.set(state, (counts.google.get(state) ?? 0) + 1);
        }
        for (const mailbox of mailboxes) {
          const expiration = subscriptions.find((subscription) => subscription.userId === mailbox.userId)?.expiration;
          const state = stateOf(mailbox.watching, expiration, now);
          counts.microsoft.set(state, (counts.microsoft.get(state) ?? 0) + 1);
        }
        for (const [source, byState] of Object.entries(counts)) {
          if (byState.size === 0) continue;
          for (const state of WATCH_STATES) this.set({ source, state }, byState.get(state) ?? 0);
        }
      } catch (error) {
        logger.warn('metrics: calendar watch states unavailable', { error });
      }
    },
  });
}
