import { z } from 'zod';

import { sameSecret } from '../core/constant-time.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';
import type { JobQueue, NewJob } from '../store/types.ts';
import { LIFECYCLE_EVENTS, lifecycleKind, mailboxSyncKind } from './jobs.ts';

/** What one POST from Graph came to; the router answers it in Graph's terms. */
export type GraphReceiveOutcome =
  /** Not a Graph notification body at all: 400, nothing stored. */
  | { kind: 'invalid'; message: string }
  /** No item passed the checks: 403, nothing stored; `refused` counts items by reason. */
  | { kind: 'refused'; refused: Record<RefusalReason, number> }
  /** The good items' jobs are stored (durably, before this resolves): 202. */
  | { kind: 'accepted'; jobs: number; items: number; refused: Record<RefusalReason, number> };

export type RefusalReason = 'unknown_subscription' | 'client_state_mismatch' | 'unknown_lifecycle_event';

const id = z.string().min(1).max(256);
// Loose items: Graph adds fields; only what is checked or used is read (docs/protocols.md §7).
const notificationBodySchema = z.object({
  value: z
    .array(z.looseObject({ subscriptionId: id, clientState: z.string().max(1024).optional(), lifecycleEvent: z.string().max(100).optional() }))
    .min(1)
    .max(1000),
});

export interface GraphReceiverDeps {
  subscriptions: Pick<SubscriptionStore, 'getSubscription'>;
  jobs: Pick<JobQueue, 'enqueue'>;
}

type Item = z.infer<typeof notificationBodySchema>['value'][number];

/**
 * Change and lifecycle notifications share one check (docs/protocols.md §7): Graph signs nothing,
 * so every item's clientState is compared, in constant time, with the secret of the subscription
 * it names; an item of an unknown subscription or with the wrong secret is dropped and counted.
 * What the good items ask for is stored as jobs before the answer: a sync per mailbox (coalesced)
 * for changes, a lifecycle job per event.
 */
function graphReceiver(deps: GraphReceiverDeps, jobFor: (item: Item, userId: string) => NewJob | RefusalReason) {
  return async (body: unknown): Promise<GraphReceiveOutcome> => {
    const parsed = notificationBodySchema.safeParse(body);
    if (!parsed.success) return { kind: 'invalid', message: 'expected {"value": [{"subscriptionId": …, "clientState": …}, …]} (1 to 1000 items)' };
    const refused: Record<RefusalReason, number> = { unknown_subscription: 0, client_state_mismatch: 0, unknown_lifecycle_event: 0 };
    const jobs = new Map<string, NewJob>();
    for (const item of parsed.data.value) {
      const subscription = await deps.subscriptions.getSubscription(item.subscriptionId);
      let verdict: NewJob | RefusalReason;
      if (subscription === undefined || subscription.removedAt !== null) verdict = 'unknown_subscription';
      else if (!sameSecret(item.clientState, subscription.clientState)) verdict = 'client_state_mismatch';
      else verdict = jobFor(item, subscription.userId);
      if (typeof verdict === 'string') refused[verdict] += 1;
      // One job per coalescing key: a batch about one mailbox is one sync.
      else jobs.set(verdict.coalesceKey ?? String(jobs.size), verdict);
    }
    if (jobs.size === 0) return { kind: 'refused', refused };
    await deps.jobs.enqueue([...jobs.values()]);
    return { kind: 'accepted', jobs: jobs.size, items: parsed.data.value.length, refused };
  };
}

/** `POST /calendar/microsoft/notifications`: each good item → a coalesced delta sync of its mailbox. */
export const createNotificationReceiver = (deps: GraphReceiverDeps) =>
  graphReceiver(deps, (_item, userId) => mailboxSyncKind.job({ userId, trigger: 'notification' }));

/** `POST /calendar/microsoft/lifecycle`: each good item → a lifecycle job acting on it later. */
export const createLifecycleReceiver = (deps: GraphReceiverDeps) =>
  graphReceiver(deps, (item) => {
    const event = LIFECYCLE_EVENTS.find((known) => known === item.lifecycleEvent);
    return event === undefined ? 'unknown_lifecycle_event' : lifecycleKind.job({ subscriptionId: item.subscriptionId, lifecycleEvent: event });
  });
