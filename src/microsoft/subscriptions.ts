import { randomBytes } from 'node:crypto';

import type { Logger } from '../core/logger.ts';
import type { GraphSubscription, SubscriptionStore, WatchedMailbox } from '../store/subscription-store.ts';
import type { JobQueue } from '../store/types.ts';
import { GraphApiError } from './graph-api-error.ts';
import type { GraphClient } from './graph-client.ts';
import { mailboxSyncKind } from './jobs.ts';

export const NOTIFICATIONS_PATH = '/calendar/microsoft/notifications';
export const LIFECYCLE_PATH = '/calendar/microsoft/lifecycle';

// docs/protocols.md §7: Outlook event subscriptions live at most 10 080 minutes; renewed before 80 % of the life is spent.
export const MAX_SUBSCRIPTION_MS = 10_080 * 60_000;
const RENEW_AT_FRACTION = 0.8;
// Never both reauthorize and renew within 10 minutes (docs/protocols.md §7): a renewal this recent answers a reauthorization too.
export const RENEWAL_GAP_MS = 10 * 60_000;

export interface SubscriptionManagerDeps {
  store: SubscriptionStore;
  client: GraphClient;
  jobs: Pick<JobQueue, 'enqueue'>;
  /** PUBLIC_BASE_URL: Graph posts notifications and lifecycle events under it. */
  publicBaseUrl: string;
  /** MICROSOFT_SUBSCRIPTION_TTL, at most MAX_SUBSCRIPTION_MS. */
  ttlMs: number;
  logger: Logger;
  now?: () => number;
  /** Counts subscription upkeep by what happened (created, renewed, recreated, deleted, failed). */
  onUpkeep?: (what: string) => void;
}

export interface MailboxStatus extends WatchedMailbox {
  subscription: GraphSubscription | undefined;
}

export interface SubscriptionManager {
  /** Every watched mailbox ends with one live subscription, renewed when due; stopped ones have none. */
  maintain(): Promise<{ created: number; renewed: number; deleted: number; failed: number }>;
  addMailbox(userId: string): Promise<MailboxStatus>;
  removeMailbox(userId: string): Promise<boolean>;
  list(): Promise<MailboxStatus[]>;
  /** A reauthorization: renews unless renewed in the last 10 minutes; a renewal Graph answers 404 recreates. */
  reauthorize(subscription: GraphSubscription): Promise<'renewed' | 'recreated' | 'recently renewed'>;
  /** Graph removed it: a new subscription for the mailbox (when still watched), then a delta sync. */
  replaceRemoved(subscription: GraphSubscription): Promise<'recreated' | 'not watched'>;
}

const lifeStart = (subscription: GraphSubscription) => subscription.renewedAt ?? subscription.createdAt;
export const renewalDue = (subscription: GraphSubscription, now: number): boolean =>
  now >= lifeStart(subscription) + (subscription.expiration - lifeStart(subscription)) * RENEW_AT_FRACTION;

export function createSubscriptionManager(deps: SubscriptionManagerDeps): SubscriptionManager {
  const { store, client, logger } = deps;
  const now = deps.now ?? Date.now;
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const ttlMs = Math.min(deps.ttlMs, MAX_SUBSCRIPTION_MS);
  const count = (what: string) => deps.onUpkeep?.(what);

  /** A new subscription for the mailbox; `what` names it for the upkeep metric (`created`, or `recreated` replacing one Graph lost). */
  async function create(userId: string, what: 'created' | 'recreated' = 'created'): Promise<GraphSubscription> {
    // 256 random bits, well under Graph's 128-character limit; echoed on every notification.
    const clientState = randomBytes(32).toString('base64url');
    const createdAt = now();
    const answer = await client.createSubscription({
      userId,
      notificationUrl: `${base}${NOTIFICATIONS_PATH}`,
      lifecycleNotificationUrl: `${base}${LIFECYCLE_PATH}`,
      clientState,
      expiration: createdAt + ttlMs,
    });
    const subscription: GraphSubscription = { id: answer.id, userId, clientState, expiration: answer.expiration, createdAt, renewedAt: null, removedAt: null };
    await store.saveSubscription(subscription);
    await store.recordMailboxOutcome(userId, {}, now());
    // What changed before the subscription existed is read by a sync, not notified.
    await deps.jobs.enqueue([mailboxSyncKind.job({ userId, trigger: 'subscribed' })]);
    logger.info('microsoft subscription created', { subscriptionId: answer.id, userId, expiration: new Date(answer.expiration).toISOString(), what });
    count(what);
    return subscription;
  }

  async function remove(subscription: GraphSubscription): Promise<void> {
    try {
      await client.deleteSubscription(subscription.userId, subscription.id);
    } catch (error) {
      // Already gone at Graph (404) is what we wanted; otherwise it expires on its own.
      if (!(error instanceof GraphApiError && error.kind === 'not_found')) {
        logger.warn('microsoft subscription delete failed; it expires on its own', { subscriptionId: subscription.id, error: (error as Error).message });
      }
    }
    await store.removeSubscription(subscription.id, now());
    count('deleted');
  }

  async function renew(subscription: GraphSubscription): Promise<'renewed' | 'recreated'> {
    try {
      const { expiration } = await client.renewSubscription(subscription.userId, subscription.id, now() + ttlMs);
      await store.extendSubscription(subscription.id, expiration, now());
      logger.info('microsoft subscription renewed', {
        subscriptionId: subscription.id,
        userId: subscription.userId,
        expiration: new Date(expiration).toISOString(),
      });
      count('renewed');
      return 'renewed';
    } catch (error) {
      if (!(error instanceof GraphApiError && error.kind === 'not_found')) throw error;
      // Graph no longer has it (expired or removed): a new one replaces it.
      await store.removeSubscription(subscription.id, now());
      await create(subscription.userId, 'recreated');
      return 'recreated';
    }
  }

  async function maintainMailbox(mailbox: WatchedMailbox, live: GraphSubscription[], counts: { created: number; renewed: number; deleted: number }) {
    if (!mailbox.watching) {
      for (const subscription of live) await remove(subscription);
      counts.deleted += live.length;
      return;
    }
    const [newest, ...older] = [...live].sort((a, b) => b.createdAt - a.createdAt);
    // More than one live subscription (a crash mid-recreation): keep the newest.
    for (const subscription of older) await remove(subscription);
    counts.deleted += older.length;
    if (newest === undefined || newest.expiration <= now()) {
      if (newest !== undefined) await store.removeSubscription(newest.id, now());
      await create(mailbox.userId);
      counts.created += 1;
    } else if (renewalDue(newest, now())) {
      await renew(newest);
      counts.renewed += 1;
    }
  }

  const statusOf = (mailbox: WatchedMailbox, live: GraphSubscription[]): MailboxStatus => ({
    ...mailbox,
    subscription: live.find((subscription) => subscription.userId === mailbox.userId),
  });

  return {
    async maintain() {
      const counts = { created: 0, renewed: 0, deleted: 0, failed: 0 };
      const live = await store.activeSubscriptions();
      const mailboxes = await store.listMailboxes();
      const known = new Set(mailboxes.map((mailbox) => mailbox.userId));
      // Subscriptions of mailboxes no longer on the list are deleted too.
      const orphans = [...new Set(live.filter((subscription) => !known.has(subscription.userId)).map((subscription) => subscription.userId))];
      const all: WatchedMailbox[] = [
        ...mailboxes,
        ...orphans.map((userId) => ({
          userId,
          watching: false,
          addedBy: 'unknown',
          deltaLink: null,
          windowStartedAt: null,
          lastSyncAt: null,
          lastError: null,
          updatedAt: 0,
        })),
      ];
      for (const mailbox of all) {
        try {
          await maintainMailbox(
            mailbox,
            live.filter((subscription) => subscription.userId === mailbox.userId),
            counts,
          );
        } catch (error) {
          // One mailbox's failure (consent revoked, a 5xx) must not stop the others; the next round retries.
          counts.failed += 1;
          count('failed');
          const message = (error as Error).message;
          logger.error('microsoft subscription upkeep failed', { userId: mailbox.userId, error: message });
          if (known.has(mailbox.userId)) await store.recordMailboxOutcome(mailbox.userId, { error: message }, now()).catch(() => undefined);
        }
      }
      return counts;
    },
    async addMailbox(userId) {
      const mailbox = await store.watchMailbox(userId, 'admin', now());
      const live = (await store.activeSubscriptions()).filter((subscription) => subscription.userId === userId);
      try {
        await maintainMailbox(mailbox, live, { created: 0, renewed: 0, deleted: 0 });
      } catch (error) {
        // Watched all the same: the next upkeep round tries again, and the list shows why it failed.
        await store.recordMailboxOutcome(userId, { error: (error as Error).message }, now());
        logger.warn('microsoft subscription could not be created yet', { userId, error: (error as Error).message });
      }
      return statusOf((await store.getMailbox(userId)) ?? mailbox, await store.activeSubscriptions());
    },
    async removeMailbox(userId) {
      const found = await store.unwatchMailbox(userId, now());
      for (const subscription of (await store.activeSubscriptions()).filter((item) => item.userId === userId)) await remove(subscription);
      return found;
    },
    async list() {
      const live = await store.activeSubscriptions();
      return (await store.listMailboxes()).map((mailbox) => statusOf(mailbox, live));
    },
    async reauthorize(subscription) {
      if (subscription.renewedAt !== null && now() - subscription.renewedAt < RENEWAL_GAP_MS) return 'recently renewed';
      return renew(subscription);
    },
    async replaceRemoved(subscription) {
      await store.removeSubscription(subscription.id, now());
      const mailbox = await store.getMailbox(subscription.userId);
      if (mailbox === undefined || !mailbox.watching) return 'not watched';
      const live = (await store.activeSubscriptions()).filter((item) => item.userId === subscription.userId);
      // Another path (upkeep) may have replaced it already.
      if (live.length === 0) await create(subscription.userId, 'recreated');
      return 'recreated';
    },
  };
}
