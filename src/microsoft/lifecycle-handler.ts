import type { HandlerResult, JobHandler } from '../jobs/types.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';
import type { JobQueue } from '../store/types.ts';
import { GraphApiError } from './graph-api-error.ts';
import { lifecycleKind, mailboxSyncKind } from './jobs.ts';
import type { SubscriptionManager } from './subscriptions.ts';

export interface LifecycleHandlerDeps {
  subscriptions: SubscriptionStore;
  manager: SubscriptionManager;
  jobs: Pick<JobQueue, 'enqueue'>;
  /** Counts each lifecycle event acted on. */
  onEvent?: (event: string) => void;
}

/**
 * `microsoft-lifecycle` jobs (docs/protocols.md §7), after the notification was acknowledged:
 * `reauthorizationRequired` renews (never twice within 10 minutes); `subscriptionRemoved` makes
 * a new subscription and syncs; `missed` syncs. Graph errors retry on the worker's schedule.
 */
export function createLifecycleHandler(deps: LifecycleHandlerDeps): JobHandler {
  return lifecycleKind.handler(async ({ subscriptionId, lifecycleEvent }, _job, context): Promise<HandlerResult> => {
    const subscription = await deps.subscriptions.getSubscription(subscriptionId);
    if (subscription === undefined) return { kind: 'final', state: 'skipped', reason: `subscription ${subscriptionId} is not one of ours` };
    deps.onEvent?.(lifecycleEvent);
    const sync = () => deps.jobs.enqueue([mailboxSyncKind.job({ userId: subscription.userId, trigger: 'lifecycle' })]);
    try {
      switch (lifecycleEvent) {
        case 'reauthorizationRequired': {
          if (subscription.removedAt !== null) return { kind: 'final', state: 'skipped', reason: 'subscription already replaced' };
          const outcome = await deps.manager.reauthorize(subscription);
          return outcome === 'recently renewed'
            ? { kind: 'final', state: 'skipped', reason: 'renewed within the last 10 minutes' }
            : { kind: 'succeeded', result: { outcome } };
        }
        case 'subscriptionRemoved': {
          const outcome = await deps.manager.replaceRemoved(subscription);
          if (outcome === 'recreated') await sync();
          return { kind: 'succeeded', result: { outcome } };
        }
        case 'missed':
          await sync();
          return { kind: 'succeeded', result: { outcome: 'sync enqueued' } };
      }
    } catch (error) {
      if (!(error instanceof GraphApiError)) throw error;
      context.logger.warn('microsoft lifecycle action failed', { subscriptionId, lifecycleEvent, error: error.message });
      if (error.kind === 'final') return { kind: 'final', state: 'dead', reason: error.message };
      return { kind: 'retryable', error: error.message, ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }) };
    }
  });
}
