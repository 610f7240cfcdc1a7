import type { Logger } from '../core/logger.ts';

/**
 * In-process "jobs may be claimable" listeners. Several writes in one tick wake each listener once;
 * a listener that throws is logged and never breaks the write that woke it.
 */
export interface JobsNotifier {
  subscribe(listener: () => void): () => void;
  notify(): void;
}

export function createJobsNotifier(logger: Logger): JobsNotifier {
  const listeners = new Set<() => void>();
  let pending = false;
  const fire = () => {
    pending = false;
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        logger.error('jobs-available listener failed', { error });
      }
    }
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    notify() {
      if (pending || listeners.size === 0) return;
      pending = true;
      queueMicrotask(fire);
    },
  };
}
