import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';

import type { Config } from '../../core/config.ts';
import type { IntegrationReport } from '../../core/health-registry.ts';
import type { Logger } from '../../core/logger.ts';
import type { MappingRules } from '../../mapping/rules-schema.ts';
import type { InboundMetrics } from '../../metrics/bridge-metrics.ts';
import type { Store } from '../../store/types.ts';
import type { SalesforceApi, SalesforceSession } from '../jsforce-connection.ts';
import { createChangeDecoder } from './avro-decoder.ts';
import { createCdcIngest } from './cdc-ingest.ts';
import { channelHealth } from './channel-health.ts';
import { fetchStreamOf } from './fetch-stream.ts';
import { createPubSubClient } from './grpc-client.ts';
import { pubsubLeaseName } from './lease-name.ts';
import { type PeriodicBackstop, startPeriodicBackstop } from './periodic-backstop.ts';
import { createRecordReader } from './record-reader.ts';
import { startSubscription, type Subscription } from './subscription.ts';
import { backstopObjects } from './topic-objects.ts';
import { type TopicReporter, topicReporter } from './topic-reporter.ts';
import type { TrustOptions } from './trust.ts';

/**
 * The Change Data Capture subscriber (docs/operations.md, "Salesforce Pub/Sub"): one gRPC client
 * per bridge, signed in with the lookups' Salesforce session, and one subscription per channel in
 * SALESFORCE_PUBSUB_TOPICS, each streaming only while this instance holds its lease.
 */

export interface PubSubRuntime {
  /** Signs in and subscribes, in the background: a Salesforce that does not answer yet is retried, never a failed start. */
  start(): void;
  /** Ends every stream (batches received are stored first), releases the leases and notes `stopped`. */
  stop(): Promise<void>;
}

export interface PubSubTiming {
  /** The lease's length: another instance takes over this long after the holder stops renewing. */
  leaseMs: number;
  /** How often the lease is renewed (and a waiting instance asks for it). */
  leaseEveryMs: number;
  silenceMs: number;
  backoff: { baseMs: number; maxMs: number };
}

export interface PubSubRuntimeDeps {
  api: SalesforceApi;
  store: Store;
  rules: MappingRules;
  logger: Logger;
  health: IntegrationReport;
  metrics?: InboundMetrics;
  /** The extra certificate authorities of the channel; NODE_EXTRA_CA_CERTS when not given. */
  trust?: TrustOptions;
  /** This instance's name in the leases and the cursors' `holder`. */
  owner?: string;
  timing?: Partial<PubSubTiming>;
}

// A lease of 20 s renewed every 5 s: a holder that dies is replaced within 30 s, and a slow renewal or two is survived.
const DEFAULT_TIMING: PubSubTiming = { leaseMs: 20_000, leaseEveryMs: 5_000, silenceMs: 300_000, backoff: { baseMs: 1_000, maxMs: 60_000 } };

export function createPubSubRuntime(
  config: Pick<
    Config,
    | 'SALESFORCE_PUBSUB'
    | 'SALESFORCE_PUBSUB_TOPICS'
    | 'SALESFORCE_PUBSUB_ENDPOINT'
    | 'SALESFORCE_PUBSUB_BATCH'
    | 'SALESFORCE_PUBSUB_START'
    | 'SALESFORCE_PUBSUB_BACKSTOP'
    | 'SALESFORCE_CLIENT_ID'
  >,
  deps: PubSubRuntimeDeps,
): PubSubRuntime | undefined {
  if (!config.SALESFORCE_PUBSUB) return undefined;
  const { api, store, logger } = deps;
  const timing = { ...DEFAULT_TIMING, ...deps.timing };
  const owner = deps.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const abort = new AbortController();
  const subscriptions: Subscription[] = [];
  const reporters: TopicReporter[] = [];
  const backstops: PeriodicBackstop[] = [];
  let session: SalesforceSession | undefined;
  let refreshing: Promise<void> | undefined;
  let booting: Promise<void> | undefined;
  const healthOf = channelHealth(deps.health);

  const connect = () =>
    createPubSubClient({
      endpoint: config.SALESFORCE_PUBSUB_ENDPOINT,
      // Asked before every call: a refreshed token is used from the next call on.
      auth: async () => {
        session ??= await api.session();
        return { accessToken: session.accessToken, instanceUrl: session.instanceUrl, tenantId: session.orgId };
      },
      ...(deps.trust ? { trust: deps.trust } : {}),
    });
  let client = connect();
  const decoder = createChangeDecoder((schemaId) => client.getSchema(schemaId));
  const reader = createRecordReader(api, () => deps.rules);
  const mapsType = (type: string) => Object.hasOwn(deps.rules.sObjects, type) && deps.rules.sObjects[type]!.enabled;

  // UNAUTHENTICATED: sign in again and rebuild the channel, so nothing of the refused session
  // (an HTTP/2 connection the server tied to it) is reused; the other channels' streams end with it
  // and resume after their stored ids. The topics share one session: a token refused on several at
  // once is refreshed, and the channel rebuilt, once.
  const refreshAuth = () =>
    (refreshing ??= api
      .reauthenticate()
      .then((renewed) => {
        session = renewed;
        const refused = client;
        client = connect();
        refused.close();
      })
      .finally(() => (refreshing = undefined)));

  function subscribe(orgId: string, topic: string): Subscription {
    // Replay ids are written only under the lease: a holder that lost it cannot move the position back.
    const lease = { name: pubsubLeaseName(orgId, topic), owner };
    const ingest = createCdcIngest({
      lease,
      store,
      decoder,
      reader,
      orgId,
      selfClientId: config.SALESFORCE_CLIENT_ID,
      mapsType,
      logger,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
    });
    // What changed since `from`, by SystemModstamp, stored like the stream's events (with keys of its own), page by page.
    const readChangedSince = async (from: number) => {
      for (const sObjectType of backstopObjects(topic, deps.rules)) {
        const records = await reader.changedSince(sObjectType, from, (page) => ingest.storeRecords(topic, sObjectType, page));
        logger.info('Salesforce Pub/Sub backstop read what changed by SystemModstamp', { topic, sObjectType, since: new Date(from).toISOString(), records });
      }
    };
    const report = topicReporter({
      store: store.pubsub,
      leases: store.channels,
      orgId,
      topic,
      owner,
      leaseMs: timing.leaseMs,
      health: healthOf(topic),
      logger,
    });
    reporters.push(report);
    const periodic = startPeriodicBackstop({
      everyMs: config.SALESFORCE_PUBSUB_BACKSTOP,
      holds: report.holds,
      backstop: (since) => readChangedSince(since ?? Date.now() - config.SALESFORCE_PUBSUB_BACKSTOP),
      logger,
    });
    backstops.push(periodic);
    // The stored replay id was refused: what changed since the last stored commit is read at once.
    // A read that fails is owed: the periodic backstop reads from the same point until one succeeds.
    const catchUp = async (since: number | undefined) => {
      const from = since ?? Date.now() - config.SALESFORCE_PUBSUB_BACKSTOP;
      await report.backstop(from);
      try {
        await readChangedSince(from);
      } catch (error) {
        periodic.reachBack(from);
        throw error;
      }
    };
    return startSubscription({
      topic,
      batch: config.SALESFORCE_PUBSUB_BATCH,
      startPreset: config.SALESFORCE_PUBSUB_START,
      silenceMs: timing.silenceMs,
      backoff: timing.backoff,
      leaseEveryMs: timing.leaseEveryMs,
      openStream: () => fetchStreamOf(client.subscribe()),
      cursor: async () => {
        const stored = await store.pubsub.get(orgId, topic);
        return {
          ...(stored?.replayId ? { replayId: Buffer.from(stored.replayId) } : {}),
          ...(stored?.commitTimestamp == null ? {} : { commitTimestamp: stored.commitTimestamp }),
        };
      },
      store: (events) => ingest.storeEvents(topic, events),
      keepalive: (replayId) => store.pubsub.saveKeepalive(orgId, topic, replayId, Date.now(), lease),
      backstop: catchUp,
      refreshAuth,
      holdLease: report.holdLease,
      releaseLease: report.releaseLease,
      onState: report.onState,
      onResponse: report.onResponse,
      onBackoff: (attempt, ms) => logger.info('Salesforce Pub/Sub: the next stream opens after a pause', { topic, attempt: attempt + 1, ms }),
    });
  }

  async function boot(): Promise<void> {
    // The org id names the cursors and leases: the subscriptions wait for a first sign-in.
    for (let attempt = 0; !abort.signal.aborted; attempt += 1) {
      try {
        session = await api.session();
        break;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        deps.health.failed(`Salesforce sign-in failed: ${message}`);
        logger.warn('Salesforce Pub/Sub cannot sign in yet; retrying', { error: message });
        await delay(Math.min(timing.backoff.maxMs, timing.backoff.baseMs * 2 ** attempt), undefined, { signal: abort.signal }).catch(() => undefined);
      }
    }
    if (abort.signal.aborted || session === undefined) return;
    const { orgId } = session;
    logger.info('Salesforce Pub/Sub subscribing', { orgId, topics: config.SALESFORCE_PUBSUB_TOPICS, endpoint: config.SALESFORCE_PUBSUB_ENDPOINT });
    for (const topic of config.SALESFORCE_PUBSUB_TOPICS) subscriptions.push(subscribe(orgId, topic));
  }

  return {
    start() {
      booting ??= boot();
    },
    async stop() {
      abort.abort();
      await booting;
      await Promise.all(backstops.map((ticks) => ticks.stop()));
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
      // The `stopped` notes are written before the store closes.
      await Promise.all(reporters.map((reporter) => reporter.settled()));
      client.close();
    },
  };
}
