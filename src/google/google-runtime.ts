import { type Config, ConfigError } from '../core/config.ts';
import { IGNORED_REPORT, type IntegrationReport, reportingCalls } from '../core/health-registry.ts';
import type { Logger } from '../core/logger.ts';
import type { JobHandler } from '../jobs/types.ts';
import type { ChannelStore } from '../store/channel-store.ts';
import type { Inbox, JobQueue } from '../store/types.ts';
import { type CalendarClient, createCalendarClient } from './calendar-client.ts';
import { type GoogleScheduler, startGoogleScheduler } from './channel-scheduler.ts';
import { type ChannelManager, createChannelManager } from './channels.ts';
import { createGoogleAuth, loadServiceAccountKey } from './service-account.ts';
import { createCalendarSyncHandler } from './sync-handler.ts';
import { CALENDAR_SYNC_JOB } from './sync-jobs.ts';

export type GoogleSettings = Pick<
  Config,
  | 'GOOGLE_SERVICE_ACCOUNT_KEY'
  | 'GOOGLE_SERVICE_ACCOUNT_KEY_FILE'
  | 'GOOGLE_CALENDAR_API_URL'
  | 'GOOGLE_CALENDAR_IDS'
  | 'PUBLIC_BASE_URL'
  | 'GOOGLE_CHANNEL_TTL'
  | 'GOOGLE_FULL_SYNC_DAYS'
  | 'GOOGLE_FULL_SYNC_DAYS_AHEAD'
  | 'GOOGLE_BACKSTOP_SYNC'
  | 'INTERNAL_EMAIL_DOMAINS'
>;

export interface GoogleRuntime {
  channels: ChannelStore;
  manager: ChannelManager;
  client: CalendarClient;
  /** Job handlers to register, by kind (`calendar-sync`). */
  handlers: Record<string, JobHandler>;
  /** Adds GOOGLE_CALENDAR_IDS to the watched list and starts channel upkeep and the backstop sync. */
  start(options?: { maintainEveryMs?: number; now?: () => number }): Promise<GoogleScheduler>;
  close(): Promise<void>;
}

/**
 * Google Calendar watching from the settings, or undefined when no service account key is set
 * (and no calendar asks for one). Throws ConfigError for a half configuration.
 */
export function createGoogleRuntime(
  config: GoogleSettings,
  deps: {
    store: Pick<Inbox, 'ingest'> & Pick<JobQueue, 'enqueue'>;
    channels: ChannelStore | undefined;
    logger: Logger;
    now?: () => number;
    /** Where the Calendar API's outcomes are reported (GET /admin/health). */
    health?: IntegrationReport;
  },
): GoogleRuntime | undefined {
  const key = loadServiceAccountKey({ json: config.GOOGLE_SERVICE_ACCOUNT_KEY, file: config.GOOGLE_SERVICE_ACCOUNT_KEY_FILE });
  if (key === undefined) {
    if (config.GOOGLE_CALENDAR_IDS.length > 0)
      throw new ConfigError(['GOOGLE_CALENDAR_IDS: needs GOOGLE_SERVICE_ACCOUNT_KEY or GOOGLE_SERVICE_ACCOUNT_KEY_FILE']);
    return undefined;
  }
  if (config.PUBLIC_BASE_URL === undefined) {
    throw new ConfigError(['PUBLIC_BASE_URL: required to watch Google calendars (Google posts notifications to it); it is not set']);
  }
  if (deps.channels === undefined) throw new Error('Google Calendar needs a channel store: the store engine must expose its SQL runner');
  const { channels, logger } = deps;
  // Watching and listing say whether Google works; a stop may fail for a channel already gone, which is no sign of trouble.
  const client = reportingCalls(
    createCalendarClient({ baseUrl: config.GOOGLE_CALENDAR_API_URL, auth: createGoogleAuth(key), ...(deps.now ? { now: deps.now } : {}) }),
    ['watch', 'listEvents'],
    deps.health ?? IGNORED_REPORT,
  );
  const manager = createChannelManager({
    store: channels,
    client,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    ttlMs: config.GOOGLE_CHANNEL_TTL,
    logger,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const syncHandler = createCalendarSyncHandler({
    channels,
    client,
    store: deps.store,
    internalDomains: config.INTERNAL_EMAIL_DOMAINS,
    fullSyncDaysBack: config.GOOGLE_FULL_SYNC_DAYS,
    fullSyncDaysAhead: config.GOOGLE_FULL_SYNC_DAYS_AHEAD,
  });
  let scheduler: GoogleScheduler | undefined;
  logger.info('Google Calendar watching is on', { serviceAccount: key.client_email, calendars: config.GOOGLE_CALENDAR_IDS.length });

  return {
    channels,
    manager,
    client,
    handlers: { [CALENDAR_SYNC_JOB]: syncHandler },
    async start(options = {}) {
      await channels.seedCalendars(config.GOOGLE_CALENDAR_IDS, (options.now ?? deps.now ?? Date.now)());
      scheduler = startGoogleScheduler({
        manager,
        channels,
        jobs: deps.store,
        logger,
        backstopEveryMs: config.GOOGLE_BACKSTOP_SYNC,
        ...(options.maintainEveryMs ? { maintainEveryMs: options.maintainEveryMs } : {}),
        ...((options.now ?? deps.now) ? { now: options.now ?? deps.now } : {}),
      });
      return scheduler;
    },
    async close() {
      await scheduler?.stop();
      await client.close();
    },
  };
}
