import { createMappingPreview, type MappersFor, type MappingPreview } from './admin/mapping-preview.ts';
import { calendarMappers } from './calendar/calendar-mappers.ts';
import { createRecordingMapper } from './calendar/recording-mapper.ts';
import type { Config } from './core/config.ts';
import { createHealthRegistry, type HealthRegistry, reportingCalls } from './core/health-registry.ts';
import type { Logger } from './core/logger.ts';
import { createCrmDirectories } from './crm-directories.ts';
import { createGoogleRuntime, type GoogleRuntime } from './google/google-runtime.ts';
import { declareIntegrations } from './integration-health.ts';
import { createPacer, type Pacer } from './jobs/pacer.ts';
import { createJobRegistry, type JobRegistry } from './jobs/registry.ts';
import { loadRules } from './mapping/load-rules.ts';
import { createMapEventHandler } from './mapping/map-event-handler.ts';
import { mapEventKind } from './mapping/map-event-job.ts';
import { createRematchHandler } from './mapping/rematch-handler.ts';
import { rematchKind } from './mapping/rematch-job.ts';
import type { MappingRules } from './mapping/rules-schema.ts';
import type { CalendarWatchMetrics, InboundMetrics, MappingMetrics, MomentumReadMetrics } from './metrics/bridge-metrics.ts';
import { createMicrosoftRuntime, type MicrosoftRuntime } from './microsoft/microsoft-runtime.ts';
import { createMomentumClient, type MomentumClient } from './momentum/client.ts';
import { createImportHandler, createRemapHandler } from './momentum/delivery-handlers.ts';
import { importKind, MOMENTUM_RATE_KEY, momentumRateLogKey, remapKind } from './momentum/delivery-jobs.ts';
import { createReadbackHandler } from './momentum/readback-handler.ts';
import { readbackKind } from './momentum/readback-job.ts';
import { reportingMomentumClient } from './momentum/reporting-client.ts';
import { type SandboxReceiver, startSandboxReceiver } from './momentum/sandbox-receiver.ts';
import { createMomentumMeetingMapper } from './reconcile/momentum-meeting-mapper.ts';
import { MOMENTUM_SOURCE } from './reconcile/reconcile-handler.ts';
import { createReconcileRuntime } from './reconcile/reconcile-runtime.ts';
import { createCrmSweepHandler, crmSweepJob, crmSweepKind } from './salesforce/crm-sweep.ts';
import { createPubSubRuntime, type PubSubRuntime } from './salesforce/pubsub/pubsub-runtime.ts';
import { createRematchFollowUp } from './salesforce/rematch-follow-up.ts';
import { createSalesforceEventMapper } from './salesforce/salesforce-event-mapper.ts';
import type { NewJob, Store } from './store/types.ts';
import { createZoomMapper } from './zoom/zoom-mapper.ts';
import { createZoomApi } from './zoom/zoom-runtime.ts';

export { MOMENTUM_RATE_KEY } from './momentum/delivery-jobs.ts';

export interface JobHandlers {
  registry: JobRegistry;
  pacer: Pacer;
  rules: MappingRules;
  client: MomentumClient;
  sandbox: SandboxReceiver | undefined;
  /** Google Calendar watching, when a service account is configured. */
  google: GoogleRuntime | undefined;
  /** Microsoft 365 calendar watching, when an app registration is configured. */
  microsoft: MicrosoftRuntime | undefined;
  /** The Salesforce Change Data Capture subscriber, when SALESFORCE_PUBSUB=on; started after listen. */
  pubsub: PubSubRuntime | undefined;
  /** What mapping would make of a payload or stored event, on these mappers (POST /admin/mapping/preview). */
  mappingPreview: MappingPreview;
  /** Jobs to enqueue once the worker runs: the first re-match sweep, one interval on, when Salesforce lookups and the sweep are on. */
  startupJobs: NewJob[];
  /** Starts what runs on timers of its own (the reconcile walks, when MOMENTUM_RECONCILE_INTERVAL is set); after the worker starts. */
  start(): void;
  close(): Promise<void>;
}

/**
 * Every job handler, registered by kind, with what they need: mapping rules, CRM lookups, the
 * Momentum client (or the sandbox receiver standing in for it), the pacer, Google and Microsoft 365 watching.
 */
export async function createJobHandlers(
  config: Config,
  store: Store,
  logger: Logger,
  metrics?: MappingMetrics & CalendarWatchMetrics & MomentumReadMetrics & InboundMetrics,
  health: HealthRegistry = createHealthRegistry(),
): Promise<JobHandlers> {
  const rules = loadRules(config);
  const directories = createCrmDirectories(config, logger, { opportunityTeams: rules.matching.opportunityTeams, health: health.report('salesforce-lookups') });
  const google = createGoogleRuntime(config, { store, channels: store.channels, logger, health: health.report('google') });
  const microsoft = createMicrosoftRuntime(config, {
    store,
    subscriptions: store.subscriptions,
    leases: store.channels,
    logger,
    health: health.report('microsoft'),
    ...(metrics ? { metrics } : {}),
  });
  // Pub/Sub signs in with the lookups' connection (its settings check demands their credentials).
  const pubsub =
    directories.api &&
    createPubSubRuntime(config, { api: directories.api, store, rules, logger, health: health.report('salesforce-pubsub'), ...(metrics ? { metrics } : {}) });
  const sandbox = config.MOMENTUM_API_KEY === undefined && config.NODE_ENV !== 'production' ? await startSandboxReceiver(logger) : undefined;
  if (sandbox) {
    logger.warn('SANDBOX MODE: MOMENTUM_API_KEY is not set, so remaps go to a built-in local receiver and are only logged', {
      sandboxUrl: sandbox.url,
    });
  }
  const rawClient = createMomentumClient({
    apiBaseUrl: sandbox?.url ?? config.MOMENTUM_API_BASE_URL,
    receiverUrl: sandbox?.url ?? config.MOMENTUM_RECEIVER_URL,
    importPath: config.MOMENTUM_IMPORT_PATH,
    apiKey: config.MOMENTUM_API_KEY ?? 'sandbox',
    timeoutMs: config.MOMENTUM_TIMEOUT_MS,
  });
  // Every answer of Momentum (or the sandbox) feeds GET /admin/health.
  const client = reportingMomentumClient(rawClient, health.report('momentum'));
  // A call never answered counts against the budget until its timeout: it may have reached Momentum until then.
  // The sandbox's calls are counted apart from a real key's (delivery-jobs.ts, SANDBOX_RATE_LOG_KEY).
  const pacer = createPacer(store, [
    { key: MOMENTUM_RATE_KEY, logKey: momentumRateLogKey(sandbox !== undefined), limit: config.MOMENTUM_RATE_LIMIT, callTimeoutMs: config.MOMENTUM_TIMEOUT_MS },
  ]);
  const registry = createJobRegistry();
  const delivery = { client, pacer, rateKey: MOMENTUM_RATE_KEY, logger };
  // Read-back needs a real Momentum to mean anything; the sandbox can be read back when asked to.
  const readback = config.MOMENTUM_READBACK ?? sandbox === undefined;
  registry.register(remapKind.name, createRemapHandler({ ...delivery, store, ...(readback ? { readbackDelayMs: config.MOMENTUM_READBACK_DELAY } : {}) }));
  registry.register(importKind.name, createImportHandler({ ...delivery, store }));
  registry.register(readbackKind.name, createReadbackHandler({ ...delivery, store, enabled: readback, ...(metrics ? { metrics } : {}) }));
  const reconcile = createReconcileRuntime(config, { ...delivery, store, matching: rules.matching, ...(metrics ? { metrics } : {}) });
  const zoomApi = createZoomApi(config);
  const zoom = zoomApi && reportingCalls(zoomApi, ['participants'], health.report('zoom'));
  declareIntegrations(health, config, {
    sandbox: sandbox !== undefined,
    lookups: directories.owners !== undefined,
    pubsub: pubsub !== undefined,
    google: google !== undefined,
    microsoft: microsoft !== undefined,
    zoomApi: zoomApi !== undefined,
  });
  // One set of mappers per set of rules, all on the same CRM directories (one cache) and Zoom client.
  const mappersFor = (ruleSet: MappingRules, attendees = directories.attendees): ReturnType<MappersFor> => {
    const recordingDeps = {
      rules: ruleSet.recordings,
      calendar: ruleSet.calendar,
      matching: ruleSet.matching,
      rulesVersion: ruleSet.version,
      internalDomains: config.INTERNAL_EMAIL_DOMAINS,
      ...(attendees ? { directory: attendees } : {}),
    };
    return {
      // Recordings become imports: Zoom's after its participants are read, signed ones as posted.
      zoom: createZoomMapper({ ...recordingDeps, client: zoom }),
      recording: createRecordingMapper(recordingDeps),
      salesforce: createSalesforceEventMapper({
        rules: ruleSet,
        internalDomains: config.INTERNAL_EMAIL_DOMAINS,
        ...(directories.owners ? { directory: directories.owners } : {}),
      }),
      // Meetings a reconcile found in Momentum that the bridge never delivered for.
      [MOMENTUM_SOURCE]: createMomentumMeetingMapper({
        matching: ruleSet.matching,
        rulesVersion: ruleSet.version,
        internalDomains: config.INTERNAL_EMAIL_DOMAINS,
        flags: { triggerSummary: ruleSet.calendar.triggerSummary, triggerAiSignals: ruleSet.calendar.triggerAiSignals },
        ...(directories.attendees ? { directory: directories.attendees } : {}),
      }),
      ...calendarMappers({
        rules: ruleSet.calendar,
        matching: ruleSet.matching,
        rulesVersion: ruleSet.version,
        internalDomains: config.INTERNAL_EMAIL_DOMAINS,
        directory: attendees,
      }),
    };
  };
  const mappers = mappersFor(rules);
  // A changed Salesforce record re-checks the meetings whose match looked at it (docs/calendars.md, re-matching).
  const followUps = {
    salesforce: createRematchFollowUp({
      matches: store.matches,
      ...(directories.attendees ? { directory: directories.attendees } : {}),
      rematchDays: rules.matching.rematchDays,
      logger,
    }),
  };
  registry.register(mapEventKind.name, createMapEventHandler({ store, logger, mappers, followUps, ...(metrics ? { metrics } : {}) }));
  // A re-check reads the CRM as it is now: another instance may have cached what this change made stale.
  registry.register(rematchKind.name, createRematchHandler({ store, logger, mappers: mappersFor(rules, directories.attendees?.uncached()) }));
  const sweepEveryMs = directories.changes === undefined ? undefined : config.REMATCH_SWEEP_INTERVAL;
  if (directories.changes !== undefined && sweepEveryMs !== undefined) {
    const sweep = { changes: directories.changes, matches: store.matches, intervalMs: sweepEveryMs, rematchDays: rules.matching.rematchDays, logger };
    registry.register(crmSweepKind.name, createCrmSweepHandler({ ...sweep, ...(directories.attendees ? { directory: directories.attendees } : {}) }));
  }
  const mappingPreview = createMappingPreview({
    rules,
    mappersFor: (ruleSet) => mappersFor(ruleSet),
    store,
    orgIds: config.SALESFORCE_ORG_IDS,
    settings: config,
    logger,
  });
  for (const [kind, handler] of Object.entries({ ...google?.handlers, ...microsoft?.handlers, ...reconcile.handlers })) registry.register(kind, handler);
  return {
    startupJobs: sweepEveryMs === undefined ? [] : [crmSweepJob(Date.now() + sweepEveryMs)],
    registry,
    pacer,
    rules,
    client,
    sandbox,
    google,
    microsoft,
    pubsub,
    mappingPreview,
    start: () => reconcile.start(),
    close: async () => {
      await pubsub?.stop();
      await reconcile.stop();
      await google?.close();
      await microsoft?.close();
      await zoom?.close();
      await client.close();
      await sandbox?.close();
    },
  };
}
