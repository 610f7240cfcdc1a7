import type { IntegrationReport } from '../../core/health-registry.ts';
import type { Logger } from '../../core/logger.ts';
import type { ChannelStore } from '../../store/channel-store.ts';
import { type PubSubCursors, PubSubLeaseLostError, type PubSubStateNote } from '../../store/pubsub-types.ts';
import { pubsubLeaseName } from './lease-name.ts';
import type { SessionEnd } from './stream-session.ts';
import type { FetchResponse } from './stream-types.ts';
import type { SubscriptionState } from './subscription.ts';

/**
 * What one topic's subscription tells the rest of the bridge: its lease in the store, its state
 * in its cursor row (GET /admin/pubsub), the `salesforce-pubsub` health entry and the logs. Only
 * the lease holder notes a state: an instance waiting for the lease would overwrite the holder's.
 */

export interface TopicReporterOptions {
  store: Pick<PubSubCursors, 'noteState'>;
  leases: Pick<ChannelStore, 'tryLease' | 'releaseLease'>;
  orgId: string;
  topic: string;
  owner: string;
  leaseMs: number;
  health: IntegrationReport;
  logger: Logger;
}

export interface TopicReporter {
  holdLease(): Promise<boolean>;
  /** Whether this instance held the lease at its last renewal: only the holder runs the periodic backstop. */
  holds(): boolean;
  releaseLease(): Promise<void>;
  onState(state: SubscriptionState, detail?: { error?: string; end?: SessionEnd }): void;
  onResponse(response: FetchResponse): void;
  /** Notes `backstop`: the stored replay id was refused and SOQL reads from `from` (epoch ms). */
  backstop(from: number): Promise<void>;
  /** Resolves once every state noted so far is written. */
  settled(): Promise<void>;
}

export function topicReporter(options: TopicReporterOptions): TopicReporter {
  const { orgId, topic, owner, logger } = options;
  const lease = pubsubLeaseName(orgId, topic);
  let held = false;
  let notes: Promise<void> = Promise.resolve();

  // In order, one after another: a pool could otherwise write `subscribed` before the `resubscribing` that came first.
  const note = (state: PubSubStateNote['state'], extra: Omit<PubSubStateNote, 'state' | 'at'> = {}) => {
    const at = Date.now();
    notes = notes
      .then(() => options.store.noteState(orgId, topic, { state, at, ...extra }))
      .catch((error: unknown) => void logger.warn('the Pub/Sub state could not be noted', { topic, state, error: (error as Error).message }));
    return notes;
  };

  return {
    holds: () => held,
    async holdLease() {
      const was = held;
      held = await options.leases.tryLease(lease, owner, options.leaseMs, Date.now());
      if (was && !held) logger.warn('Salesforce Pub/Sub lease lost: another instance streams this channel', { topic, lease });
      return held;
    },
    async releaseLease() {
      await options.leases.releaseLease(lease, owner);
    },
    onState(state, detail = {}) {
      if (state === 'waiting-for-lease') return;
      if (state === 'subscribed') {
        void note('subscribed', { holder: owner });
        logger.info('Salesforce Pub/Sub stream open', { topic });
        return;
      }
      if (state === 'stopped') {
        if (held) void note('stopped', { holder: null });
        held = false;
        return;
      }
      // The store refused a replay id because the lease had expired meanwhile: lost, as if a renewal had found it taken.
      if (detail.end?.reason === 'store-failed' && detail.end.error instanceof PubSubLeaseLostError) {
        if (held) logger.warn('Salesforce Pub/Sub lease lost: another instance streams this channel', { topic, lease });
        held = false;
      }
      // A stream this instance ended because it lost the lease: the new holder notes its own state.
      if (!held) return;
      const error = detail.error ?? failure(detail.end);
      const why = error ?? (detail.end ? `the stream ended: ${detail.end.reason}` : 'the stream ended');
      void note('resubscribing', error === undefined ? {} : { error: error.slice(0, 500) });
      if (error !== undefined) options.health.failed(`${topic}: ${error}`);
      logger.warn('Salesforce Pub/Sub resubscribing', { topic, reason: why, ...(detail.end ? { received: detail.end.received } : {}) });
    },
    onResponse() {
      options.health.ok();
    },
    async backstop(from) {
      logger.warn('Salesforce Pub/Sub: the stored replay id was refused; resubscribing from EARLIEST and reading what changed by SOQL', {
        topic,
        since: new Date(from).toISOString(),
      });
      await note('backstop');
    },
    settled: () => notes,
  };
}

/** Why a stream that ended without a gRPC error failed, if it did: a closed stream is no failure. */
function failure(end: SessionEnd | undefined): string | undefined {
  if (end?.reason === 'store-failed') return `a batch could not be stored: ${end.error.message}`;
  if (end?.reason === 'silent') return 'the stream went silent: no event and no keepalive within the watchdog';
  return undefined;
}
