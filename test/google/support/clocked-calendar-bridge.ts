import { calendarEventsRouter } from '../../../routes/calendar-events.ts';
import { googleCalendarRouter } from '../../../routes/google-calendar.ts';
import { calendarMappers } from '../../../src/calendar/calendar-mappers.ts';
import type { GoogleScheduler } from '../../../src/google/channel-scheduler.ts';
import { createGoogleRuntime, type GoogleRuntime } from '../../../src/google/google-runtime.ts';
import { createJobRegistry } from '../../../src/jobs/registry.ts';
import { createWorker, type Worker } from '../../../src/jobs/worker.ts';
import { builtInRules } from '../../../src/mapping/default-rules.ts';
import { createMapEventHandler } from '../../../src/mapping/map-event-handler.ts';
import { MAP_EVENT_JOB } from '../../../src/mapping/map-event-job.ts';
import { createMomentumClient } from '../../../src/momentum/client.ts';
import { createRemapHandler } from '../../../src/momentum/delivery-handlers.ts';
import { parseConfig } from '../../../src/settings.ts';
import type { Store } from '../../../src/store/types.ts';
import { WEBHOOK_SECRET } from '../../calendar/support/signed-events.ts';
import type { FakeGoogle } from '../../fakes/fake-google.ts';
import type { FakeMomentum } from '../../fakes/fake-momentum.ts';
import { listenRouters } from '../../support/app-harness.ts';
import { captureLogs } from '../../support/log-capture.ts';
import { testServiceAccountKey } from './service-account-key.ts';

/**
 * The calendar half of the bridge assembled by hand: the routes on a real port, the real store and
 * worker, the map-event handler with the calendar mappers, the remap handler to a fake Momentum, and
 * Google watching against a fake Google, on a clock the test moves. Only for what startBridge cannot
 * do: the channel manager's clock comes from createGoogleRuntime's `now`, which startBridge (through
 * createJobHandlers) does not take, so channel renewal cannot be brought forward there. Everything
 * else goes through startCalendarBridge (calendar-bridge.ts). One "process" on the store it is given
 * (either engine; channels through the store's own channel store): `stop()` ends it and a second
 * bridge over the same store is a restart.
 */
export interface ClockedCalendarBridge {
  url: string;
  runtime: GoogleRuntime;
  scheduler: GoogleScheduler;
  worker: Worker;
  stop(): Promise<void>;
}

export async function startClockedCalendarBridge(options: {
  store: Store;
  google: FakeGoogle;
  momentum: FakeMomentum;
  calendars: string[];
  now?: () => number;
  /** A restart keeps its address (PUBLIC_BASE_URL): Google still posts to the old one. */
  port?: number;
}): Promise<ClockedCalendarBridge> {
  const logs = captureLogs({ level: 'warn' });
  const channels = options.store.channels;
  const routes = [googleCalendarRouter({ channels, store: options.store, logger: logs.logger })];
  routes.push(
    calendarEventsRouter({ config: { CALENDAR_WEBHOOK_SECRETS: [WEBHOOK_SECRET], CALENDAR_MAX_BODY: 65_536 }, store: options.store, logger: logs.logger }),
  );
  const server = await listenRouters(routes, logs.logger, options.port);
  const config = parseConfig({
    GOOGLE_SERVICE_ACCOUNT_KEY: testServiceAccountKey(options.google.tokenUrl),
    GOOGLE_CALENDAR_API_URL: options.google.calendarApiUrl,
    GOOGLE_CALENDAR_IDS: options.calendars.join(','),
    PUBLIC_BASE_URL: server.url,
    GOOGLE_CHANNEL_TTL: '1h',
    INTERNAL_EMAIL_DOMAINS: 'example.com',
  });

  const runtime = createGoogleRuntime(config, { store: options.store, channels, logger: logs.logger, ...(options.now ? { now: options.now } : {}) })!;
  const client = createMomentumClient({
    apiBaseUrl: options.momentum.url,
    receiverUrl: options.momentum.url,
    importPath: '/user-provided-meeting',
    apiKey: 'mk-test-key',
    timeoutMs: 5_000,
  });
  const rules = builtInRules({ triggerSummary: false, triggerAiSignals: false });
  const registry = createJobRegistry(runtime.handlers);
  registry.register('remap', createRemapHandler({ client, store: options.store, rateKey: 'momentum', logger: logs.logger }));
  const mappers = calendarMappers({ rules: rules.calendar, matching: rules.matching, internalDomains: config.INTERNAL_EMAIL_DOMAINS, directory: undefined });
  registry.register(MAP_EVENT_JOB, createMapEventHandler({ store: options.store, logger: logs.logger, mappers }));
  const worker = createWorker({
    store: options.store,
    registry,
    logger: logs.logger,
    concurrency: 2,
    retrySchedule: [0, 50, 100, 200],
    leaseMs: 30_000,
    maxIdleMs: 200,
  });
  worker.start();
  const scheduler = await runtime.start({ maintainEveryMs: 3_600_000 });
  // Waits for the first round (channels + a sync of every calendar) that start() began.
  await scheduler.runOnce({ maintain: false, backstop: false });

  return {
    url: server.url,
    runtime,
    scheduler,
    worker,
    async stop() {
      await server.close();
      await worker.stop(5_000);
      await runtime.close();
      await client.close();
    },
  };
}
