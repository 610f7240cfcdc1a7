import type { Logger } from './logger.ts';

export interface SerialTicks<T> {
  /** Runs one round after the one in flight (if any) ends; resolves with its result. */
  tick(): Promise<T>;
  /** No more timer ticks; resolves once the round in flight has ended. */
  stop(): Promise<void>;
}

/**
 * A round on a timer every `everyMs` (and at once with `now`), one at a time: a slow round makes
 * the next wait, never pile up. A failed timer round is logged as `failure` and the timer goes on.
 */
export function startSerialTicks<T>(round: () => Promise<T>, options: { everyMs: number; now?: boolean; logger: Logger; failure: string }): SerialTicks<T> {
  let stopped = false;
  let chain: Promise<unknown> = Promise.resolve();
  const tick = () => {
    const next = chain.then(round);
    chain = next.catch(() => undefined);
    return next;
  };
  const onTimer = () => {
    if (!stopped) tick().catch((error: unknown) => options.logger.error(options.failure, { error: (error as Error).message }));
  };
  if (options.now) onTimer();
  const timer = setInterval(onTimer, options.everyMs);
  timer.unref();
  return {
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await chain;
    },
  };
}
