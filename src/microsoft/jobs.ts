import { z } from 'zod';

import { defineJobKind } from '../jobs/job-kind.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';
import type { Job, JobQueue } from '../store/types.ts';

export const mailboxSyncPayloadSchema = z.object({
  userId: z.string().min(1),
  /** What asked for it: a change notification, a lifecycle event, the backstop, a new subscription, an operator. */
  trigger: z.enum(['notification', 'lifecycle', 'backstop', 'subscribed', 'admin']),
});

/**
 * `microsoft-sync`: one delta sync of a mailbox's calendar. Coalesced per mailbox: a burst of
 * notifications while a sync is pending becomes that one sync, since each sync reads every change
 * since the stored delta link (docs/protocols.md §7: expect duplicates and no ordering).
 */
export const mailboxSyncKind = defineJobKind('microsoft-sync', mailboxSyncPayloadSchema, {
  fieldsOf: (payload) => ({ coalesceKey: `microsoft-sync:${payload.userId.toLowerCase()}` }),
});

export const LIFECYCLE_EVENTS = ['reauthorizationRequired', 'subscriptionRemoved', 'missed'] as const;
export type LifecycleEvent = (typeof LIFECYCLE_EVENTS)[number];

/** `microsoft-lifecycle`: acting on one lifecycle notification, after it was acknowledged (docs/protocols.md §7). */
export const lifecycleKind = defineJobKind('microsoft-lifecycle', z.object({ subscriptionId: z.string().min(1), lifecycleEvent: z.enum(LIFECYCLE_EVENTS) }), {
  fieldsOf: (payload) => ({ coalesceKey: `microsoft-lifecycle:${payload.subscriptionId}:${payload.lifecycleEvent}` }),
});

/** The backstop (docs/protocols.md §7: notifications can be missed): one sync per watched mailbox. */
export async function enqueueBackstopSyncs(subscriptions: SubscriptionStore, jobs: Pick<JobQueue, 'enqueue'>): Promise<Job[]> {
  const wanted = (await subscriptions.listMailboxes())
    .filter((mailbox) => mailbox.watching)
    .map((mailbox) => mailboxSyncKind.job({ userId: mailbox.userId, trigger: 'backstop' }));
  return wanted.length === 0 ? [] : jobs.enqueue(wanted);
}
