import { z } from 'zod';

import { sameSecret } from '../core/constant-time.ts';
import { describeTextProblem, textProblem } from '../http/inbound-text.ts';
import type { GraphSubscription, SubscriptionStore } from '../store/subscription-store.ts';
import type { JobQueue, NewJob } from '../store/types.ts';
import { LIFECYCLE_EVENTS, lifecycleKind, mailboxSyncKind } from './jobs.ts';

/** What one POST from Graph came to; the router answers it in Graph's terms. */
export type GraphReceiveOutcome =
  /** Not a Graph notification body at all: 400, nothing stored. */
  | { kind: 'invalid'; message: string }
  /** No item passed the checks: 403, nothing stored; `refused` counts items by reason. */
  | { kind: 'refused'; refused: Record<RefusalReason, number> }
  /**
   * Some item passed the checks: 202. The jobs its good items ask for are stored (durably, before
   * this resolves); `ignored` counts good items that ask for nothing the bridge knows, by reason.
   */
  | { kind: 'accepted'; jobs: number; items: number; refused: Record<RefusalReason, number>; ignored: Ignored };

export type RefusalReason = 'unknown_subscription' | 'client_state_mismatch';

/** Authenticated lifecycle items of an event the bridge does not know, with the event names seen. */
export interface Ignored {
  unknown_lifecycle_event: number;
  events: string[];
}

const id = z.string().min(1).max(256);
// Loose items: Graph adds fields; only what is checked or used is read (docs/protocols.md §7).
const notificationBodySchema = z.object({
  value: z
    .array(z.looseObject({ subscriptionId: id, clientState: z.string().max(1024).optional(), lifecycleEvent: z.string().max(100).optional() }))
    .min(1)
    .max(1000),
});

export interface GraphReceiverDeps {
  subscriptions: Pick<SubscriptionStore, 'getSubscriptions'>;
  jobs: Pick<JobQueue, 'enqueue'>;
}

type Item = z.infer<typeof notificationBodySchema>['value'][number];
/** What a good item asks for: a job, or nothing (an unknown lifecycle event, ignored). */
type Wanted = { job: NewJob } | { ignore: string };

/**
 * Change and lifecycle notifications share one check (docs/protocols.md §7): Graph signs nothing,
 * so every item's clientState is compared, in constant time, with the secret of the subscription
 * it names; an item of an unknown subscription or with the wrong secret is dropped and counted.
 * The subscriptions a batch names are read in one query, so a forged batch of 1 000 items costs
 * one lookup. What the good items ask for is stored as jobs before the answer: a sync per mailbox
 * (coalesced) for changes, a lifecycle job per event.
 */
function graphReceiver(deps: GraphReceiverDeps, wantedFor: (item: Item, userId: string) => Wanted) {
  return async (body: unknown): Promise<GraphReceiveOutcome> => {
    const parsed = notificationBodySchema.safeParse(body);
    if (!parsed.success) return { kind: 'invalid', message: 'expected {"value": [{"subscriptionId": …, "clientState": …}, …]} (1 to 1000 items)' };
    const items = parsed.data.value;
    const unreadable = unstorableField(items);
    if (unreadable !== undefined) return { kind: 'invalid', message: unreadable };
    const known = new Map<string, GraphSubscription>();
    for (const subscription of await deps.subscriptions.getSubscriptions(items.map((item) => item.subscriptionId))) known.set(subscription.id, subscription);
    const refused: Record<RefusalReason, number> = { unknown_subscription: 0, client_state_mismatch: 0 };
    const ignored: Ignored = { unknown_lifecycle_event: 0, events: [] };
    const jobs = new Map<string, NewJob>();
    for (const item of items) {
      const subscription = known.get(item.subscriptionId);
      if (subscription === undefined || subscription.removedAt !== null) refused.unknown_subscription += 1;
      else if (!sameSecret(item.clientState, subscription.clientState)) refused.client_state_mismatch += 1;
      else {
        const wanted = wantedFor(item, subscription.userId);
        if ('ignore' in wanted) {
          ignored.unknown_lifecycle_event += 1;
          if (!ignored.events.includes(wanted.ignore)) ignored.events.push(wanted.ignore);
        }
        // One job per coalescing key: a batch about one mailbox is one sync.
        else jobs.set(wanted.job.coalesceKey ?? String(jobs.size), wanted.job);
      }
    }
    if (jobs.size === 0 && ignored.unknown_lifecycle_event === 0) return { kind: 'refused', refused };
    if (jobs.size > 0) await deps.jobs.enqueue([...jobs.values()]);
    return { kind: 'accepted', jobs: jobs.size, items: items.length, refused, ignored };
  };
}

/**
 * The first field read that holds text no store keeps (U+0000, an unpaired surrogate): such an
 * item is none of Graph's, and a lookup with it would fail on PostgreSQL (a 500, not a 400).
 * Fields the bridge does not read are not looked at.
 */
function unstorableField(items: readonly Item[]): string | undefined {
  for (const [index, item] of items.entries()) {
    for (const field of ['subscriptionId', 'clientState', 'lifecycleEvent'] as const) {
      const value = item[field];
      const problem = value === undefined ? undefined : textProblem(value);
      if (problem !== undefined) return `value.${index}.${field} ${describeTextProblem(problem)}`;
    }
  }
  return undefined;
}

/** `POST /calendar/microsoft/notifications`: each good item → a coalesced delta sync of its mailbox. */
export const createNotificationReceiver = (deps: GraphReceiverDeps) =>
  graphReceiver(deps, (_item, userId) => ({ job: mailboxSyncKind.job({ userId, trigger: 'notification' }) }));

/**
 * `POST /calendar/microsoft/lifecycle`: each good item → a lifecycle job acting on it later. An
 * authenticated item of an event the bridge does not know is acknowledged and only counted
 * (docs/protocols.md §7): refusing it would make Graph retry it for hours.
 */
export const createLifecycleReceiver = (deps: GraphReceiverDeps) =>
  graphReceiver(deps, (item) => {
    const event = LIFECYCLE_EVENTS.find((known) => known === item.lifecycleEvent);
    return event === undefined
      ? { ignore: item.lifecycleEvent ?? '(none)' }
      : { job: lifecycleKind.job({ subscriptionId: item.subscriptionId, lifecycleEvent: event }) };
  });
