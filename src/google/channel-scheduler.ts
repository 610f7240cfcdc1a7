import { type LeasedUpkeep, startLeasedUpkeep } from '../calendar/leased-upkeep.ts';
import type { Logger } from '../core/logger.ts';
import type { ChannelStore } from '../store/channel-store.ts';
import type { JobQueue } from '../store/types.ts';
import type { ChannelManager } from './channels.ts';
import { enqueueBackstopSyncs } from './sync-jobs.ts';

export const CHANNEL_LEASE = 'google-channels';

export interface GoogleSchedulerOptions {
  manager: ChannelManager;
  channels: ChannelStore;
  jobs: Pick<JobQueue, 'enqueue'>;
  logger: Logger;
  /** How often channels are checked for creation and renewal. */
  maintainEveryMs?: number;
  /** GOOGLE_BACKSTOP_SYNC. */
  backstopEveryMs: number;
  owner?: string;
  now?: () => number;
  /** A first round (upkeep + a sync of every calendar, catching changes made while down) at once; default true. */
  runAtStart?: boolean;
}

export type GoogleScheduler = LeasedUpkeep;

/** Google channel upkeep and the backstop sync, by one instance at a time (calendar/leased-upkeep.ts). */
export function startGoogleScheduler(options: GoogleSchedulerOptions): GoogleScheduler {
  const { manager, channels, logger } = options;
  return startLeasedUpkeep({
    lease: CHANNEL_LEASE,
    leases: channels,
    logger,
    maintainEveryMs: options.maintainEveryMs ?? 60_000,
    backstopEveryMs: options.backstopEveryMs,
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.runAtStart === undefined ? {} : { runAtStart: options.runAtStart }),
    async maintain() {
      const counts = await manager.maintain();
      if (counts.created + counts.renewed + counts.stopped + counts.failed > 0) logger.info('google channels maintained', counts);
    },
    async backstop() {
      const jobs = await enqueueBackstopSyncs(channels, options.jobs);
      logger.debug('google backstop syncs enqueued', { jobs: jobs.length });
    },
  });
}
