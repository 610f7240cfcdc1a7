/**
 * Samples resident memory on a timer and on demand. The timer only fires between turns of the
 * event loop, so callers also sample after each unit of synchronous work; the kernel's high-water
 * mark (`process.resourceUsage().maxRSS`) catches peaks inside one turn.
 */
export interface RssSampler {
  /** Takes a sample now and returns it (bytes). */
  sample(): number;
  /** Highest sample since start or the last reset (bytes). */
  max(): number;
  reset(): void;
  stop(): void;
}

export function startRssSampler(intervalMs = 50): RssSampler {
  let max = 0;
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > max) max = rss;
    return rss;
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    sample,
    max: () => max,
    reset: () => {
      max = 0;
      sample();
    },
    stop: () => clearInterval(timer),
  };
}

/** The process's lifetime peak RSS in bytes, as the kernel counts it. */
export const peakRss = (): number => process.resourceUsage().maxRSS * 1024;
