import { type LeasedUpkeep, startLeasedUpkeep } from '../calendar/leased-upkeep.ts';
import { type Config, ConfigError } from '../core/config.ts';
import { IGNORED_REPORT, type IntegrationReport, reportingCalls } from '../core/health-registry.ts';
import type { Logger } from '../core/logger.ts';
import type { JobHandler } from '../jobs/types.ts';
import type { CalendarWatchMetrics } from '../metrics/bridge-metrics.ts';
import type { ChannelStore } from '../store/channel-store.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';
import type { Inbox, JobQueue } from '../store/types.ts';
import { createGraphAuth, type GraphCredential, readCertificateFile } from './graph-auth.ts';
import { createGraphClient, type GraphClient } from './graph-client.ts';
import { enqueueBackstopSyncs, lifecycleKind, mailboxSyncKind } from './jobs.ts';
import { createLifecycleHandler } from './lifecycle-handler.ts';
import { createSubscriptionManager, MAX_SUBSCRIPTION_MS, type SubscriptionManager } from './subscriptions.ts';
import { createMailboxSyncHandler } from './sync-handler.ts';

export type MicrosoftSettings = Pick<
  Config,
  | 'MICROSOFT_TENANT_ID'
  | 'MICROSOFT_CLIENT_ID'
  | 'MICROSOFT_CLIENT_SECRET'
  | 'MICROSOFT_CLIENT_CERTIFICATE_FILE'
  | 'MICROSOFT_LOGIN_URL'
  | 'MICROSOFT_GRAPH_API_URL'
  | 'MICROSOFT_CALENDAR_USERS'
  | 'MICROSOFT_SUBSCRIPTION_TTL'
  | 'MICROSOFT_FULL_SYNC_DAYS'
  | 'MICROSOFT_FULL_SYNC_DAYS_AHEAD'
  | 'MICROSOFT_BACKSTOP_SYNC'
  | 'PUBLIC_BASE_URL'
  | 'INTERNAL_EMAIL_DOMAINS'
>;

export const SUBSCRIPTION_LEASE = 'microsoft-subscriptions';

export interface MicrosoftRuntime {
  subscriptions: SubscriptionStore;
  manager: SubscriptionManager;
  client: GraphClient;
  /** Job handlers to register, by kind (`microsoft-sync`, `microsoft-lifecycle`). */
  handlers: Record<string, JobHandler>;
  /** Adds MICROSOFT_CALENDAR_USERS to the watched list and starts subscription upkeep and the backstop sync. */
  start(options?: { maintainEveryMs?: number; now?: () => number; owner?: string }): Promise<LeasedUpkeep>;
  close(): Promise<void>;
}

/** Which credential the settings give, or every problem with them (half-set credentials stop the start). */
function credentialOf(config: MicrosoftSettings): { credential?: GraphCredential; problems: string[] } {
  const problems: string[] = [];
  const any = [config.MICROSOFT_TENANT_ID, config.MICROSOFT_CLIENT_ID, config.MICROSOFT_CLIENT_SECRET, config.MICROSOFT_CLIENT_CERTIFICATE_FILE].some(
    (value) => value !== undefined,
  );
  if (!any) {
    if (config.MICROSOFT_CALENDAR_USERS.length > 0)
      problems.push('MICROSOFT_CALENDAR_USERS: needs MICROSOFT_TENANT_ID, MICROSOFT_CLIENT_ID and a client secret or certificate');
    return { problems };
  }
  if (config.MICROSOFT_TENANT_ID === undefined) problems.push('MICROSOFT_TENANT_ID: required with the other MICROSOFT_* credentials; it is not set');
  if (config.MICROSOFT_CLIENT_ID === undefined) problems.push('MICROSOFT_CLIENT_ID: required with the other MICROSOFT_* credentials; it is not set');
  const secret = config.MICROSOFT_CLIENT_SECRET;
  const file = config.MICROSOFT_CLIENT_CERTIFICATE_FILE;
  if (secret === undefined && file === undefined)
    problems.push('MICROSOFT_CLIENT_SECRET: set it or MICROSOFT_CLIENT_CERTIFICATE_FILE for app-only access to Graph');
  if (secret !== undefined && file !== undefined) problems.push('MICROSOFT_CLIENT_CERTIFICATE_FILE: set either it or MICROSOFT_CLIENT_SECRET, not both');
  if (config.PUBLIC_BASE_URL === undefined)
    problems.push('PUBLIC_BASE_URL: required to watch Microsoft 365 calendars (Graph posts notifications to it); it is not set');
  if (config.MICROSOFT_SUBSCRIPTION_TTL > MAX_SUBSCRIPTION_MS)
    problems.push('MICROSOFT_SUBSCRIPTION_TTL: Graph keeps event subscriptions at most 10080 minutes (7d)');
  if (problems.length > 0) return { problems };
  if (secret !== undefined) return { credential: { kind: 'secret', secret }, problems };
  try {
    return { credential: { kind: 'certificate', pem: readCertificateFile(file!) }, problems };
  } catch (error) {
    return { problems: [`MICROSOFT_CLIENT_CERTIFICATE_FILE: cannot be read: ${(error as Error).message}`] };
  }
}

// Graph's resource per cloud (docs/protocols.md §7): a national cloud's Graph is its own resource.
const NATIONAL_GRAPH_HOSTS = new Set(['graph.microsoft.com', 'graph.microsoft.us', 'dod-graph.microsoft.us', 'microsoftgraph.chinacloudapi.cn']);

/** The scope of the token: `{Graph resource}/.default`; a Graph behind another host (a proxy, a test server) is the global one. */
export function graphScope(graphUrl: string): string {
  const host = new URL(graphUrl).host;
  return `https://${NATIONAL_GRAPH_HOSTS.has(host) ? host : 'graph.microsoft.com'}/.default`;
}

/**
 * Microsoft 365 calendar watching from the settings, or undefined when no Microsoft credential is
 * set (the start log says so). Throws ConfigError naming what is missing for a half configuration.
 */
export function createMicrosoftRuntime(
  config: MicrosoftSettings,
  deps: {
    store: Pick<Inbox, 'ingest'> & Pick<JobQueue, 'enqueue'>;
    subscriptions: SubscriptionStore;
    leases: Pick<ChannelStore, 'tryLease' | 'releaseLease'>;
    logger: Logger;
    metrics?: CalendarWatchMetrics;
    now?: () => number;
    /** Where Graph's outcomes are reported (GET /admin/health). */
    health?: IntegrationReport;
  },
): MicrosoftRuntime | undefined {
  const { credential, problems } = credentialOf(config);
  if (problems.length > 0) throw new ConfigError(problems);
  const { logger, subscriptions } = deps;
  // Off says so once, in the start's line per integration (src/integration-states.ts).
  if (credential === undefined) return undefined;
  const auth = createGraphAuth({
    loginUrl: config.MICROSOFT_LOGIN_URL,
    tenantId: config.MICROSOFT_TENANT_ID!,
    clientId: config.MICROSOFT_CLIENT_ID!,
    credential,
    scope: graphScope(config.MICROSOFT_GRAPH_API_URL),
    logger,
  });
  // Subscribing, renewing and syncing say whether Graph works (its sign-in included); a delete may fail for one already gone.
  const client = reportingCalls(
    createGraphClient({ baseUrl: config.MICROSOFT_GRAPH_API_URL, accessToken: () => auth.accessToken(), ...(deps.now ? { now: deps.now } : {}) }),
    ['createSubscription', 'renewSubscription', 'delta'],
    deps.health ?? IGNORED_REPORT,
  );
  const manager = createSubscriptionManager({
    store: subscriptions,
    client,
    jobs: deps.store,
    publicBaseUrl: config.PUBLIC_BASE_URL!,
    ttlMs: config.MICROSOFT_SUBSCRIPTION_TTL,
    logger,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.metrics ? { onUpkeep: (what: string) => deps.metrics?.calendarUpkeep('microsoft', what) } : {}),
  });
  const syncHandler = createMailboxSyncHandler({
    subscriptions,
    client,
    store: deps.store,
    internalDomains: config.INTERNAL_EMAIL_DOMAINS,
    fullSyncDaysBack: config.MICROSOFT_FULL_SYNC_DAYS,
    fullSyncDaysAhead: config.MICROSOFT_FULL_SYNC_DAYS_AHEAD,
    ...(deps.metrics ? { onSync: (outcome: string) => deps.metrics?.calendarSync('microsoft', outcome) } : {}),
  });
  const lifecycleHandler = createLifecycleHandler({
    subscriptions,
    manager,
    jobs: deps.store,
    ...(deps.metrics ? { onEvent: (event: string) => deps.metrics?.calendarLifecycle('microsoft', event) } : {}),
  });
  let upkeep: LeasedUpkeep | undefined;
  logger.info('Microsoft 365 calendar watching is on', {
    tenantId: config.MICROSOFT_TENANT_ID,
    credential: credential.kind,
    mailboxes: config.MICROSOFT_CALENDAR_USERS.length,
  });

  return {
    subscriptions,
    manager,
    client,
    handlers: { [mailboxSyncKind.name]: syncHandler, [lifecycleKind.name]: lifecycleHandler },
    async start(options = {}) {
      const now = options.now ?? deps.now ?? Date.now;
      await subscriptions.seedMailboxes(config.MICROSOFT_CALENDAR_USERS, now());
      upkeep = startLeasedUpkeep({
        lease: SUBSCRIPTION_LEASE,
        leases: deps.leases,
        logger,
        maintainEveryMs: options.maintainEveryMs ?? 60_000,
        backstopEveryMs: config.MICROSOFT_BACKSTOP_SYNC,
        now,
        ...(options.owner === undefined ? {} : { owner: options.owner }),
        async maintain() {
          const counts = await manager.maintain();
          if (counts.created + counts.renewed + counts.deleted + counts.failed > 0) logger.info('microsoft subscriptions maintained', counts);
        },
        async backstop() {
          const jobs = await enqueueBackstopSyncs(subscriptions, deps.store);
          logger.debug('microsoft backstop syncs enqueued', { jobs: jobs.length });
        },
      });
      return upkeep;
    },
    async close() {
      await upkeep?.stop();
      await client.close();
      await auth.close();
    },
  };
}
