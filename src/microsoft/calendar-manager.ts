import type { CalendarManager, CalendarWatch } from '../calendar/calendar-manager.ts';
import type { MailboxStatus, SubscriptionManager } from './subscriptions.ts';

const watchOf = (status: MailboxStatus): CalendarWatch => ({
  provider: 'microsoft',
  calendarId: status.userId,
  watching: status.watching,
  addedBy: status.addedBy,
  hasSyncToken: status.deltaLink !== null,
  channel: status.subscription
    ? { id: status.subscription.id, expiration: status.subscription.expiration, createdAt: status.subscription.renewedAt ?? status.subscription.createdAt }
    : null,
  lastSyncAt: status.lastSyncAt,
  lastError: status.lastError,
});

/** Microsoft's subscription manager as the admin API's calendar manager. */
export function microsoftCalendarManager(manager: SubscriptionManager): CalendarManager {
  return {
    list: async () => (await manager.list()).map(watchOf),
    async add(calendarId) {
      const status = await manager.addMailbox(calendarId);
      // The mailbox is saved as watched either way; a refused subscription is retried by upkeep.
      if (status.subscription === undefined && status.lastError !== null) {
        return { kind: 'watch_refused', code: 'microsoft_subscription_failed', reason: `Graph refused the subscription: ${status.lastError}` };
      }
      return { kind: 'watching', calendar: watchOf(status) };
    },
    remove: (calendarId) => manager.removeMailbox(calendarId),
  };
}
