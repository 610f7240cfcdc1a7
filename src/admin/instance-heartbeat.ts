import type { Logger } from '../core/logger.ts';
import type { InstanceBeat, InstanceStore } from '../store/instance-store.ts';

/**
 * This instance's row in the instances table, refreshed every `everyMs` (15 s), so GET /admin/health
 * can list the instances seen within INSTANCE_SEEN_WITHIN_MS. States: beating (a beat at once, then
 * one per interval) → stopped (the row removed: a graceful stop is gone at once, not two minutes
 * later). A beat that fails is logged and the next one tries again; it never stops the bridge.
 */

export const INSTANCE_BEAT_MS = 15_000;
/** Eight beats: an instance missing that many is stopped, stuck or cut off from the database. */
export const INSTANCE_SEEN_WITHIN_MS = 120_000;
// Rows of instances gone a day are removed by the live ones' beats: the table stays as small as the fleet.
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

export interface InstanceHeartbeat {
  stop(): Promise<void>;
}

/** Resolves once the first beat is written (or logged as failed): a started instance is listed at once. */
export async function startInstanceHeartbeat(options: {
  store: InstanceStore;
  instance: InstanceBeat;
  logger: Logger;
  everyMs?: number;
}): Promise<InstanceHeartbeat> {
  const { store, instance, logger } = options;
  let running: Promise<void> = Promise.resolve();
  const beat = () => {
    const now = Date.now();
    running = store.beat(instance, now, now - FORGET_AFTER_MS).catch((error: unknown) => {
      logger.warn('instance heartbeat failed', { error });
    });
  };
  beat();
  await running;
  const timer = setInterval(beat, options.everyMs ?? INSTANCE_BEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await store.forget(instance.id).catch((error: unknown) => {
        logger.warn('instance row not removed at stop', { error });
      });
    },
  };
}
