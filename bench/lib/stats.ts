/** Latency and rate arithmetic shared by the benchmarks. */

export interface Distribution {
  count: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles of a sample (ms); an empty sample gives NaN, never a made-up number. */
export function distribution(samples: readonly number[]): Distribution {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    p50: rank(50),
    p90: rank(90),
    p95: rank(95),
    p99: rank(99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/** Rounds for display and JSON: 3 significant decimals below 10, 1 below 1 000, whole above. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value);
  if (magnitude >= 10) return Math.round(value * 10) / 10;
  return Math.round(value * 1000) / 1000;
}

export const perSecond = (count: number, ms: number): number => (ms > 0 ? (count * 1000) / ms : Number.NaN);

export const mb = (bytes: number): number => bytes / (1024 * 1024);

/** The process's lifetime peak RSS in bytes, as the kernel counts it: it catches peaks inside one turn of the event loop. */
export const peakRss = (): number => process.resourceUsage().maxRSS * 1024;

/** Runs `task` `concurrency` times in parallel until `next()` returns undefined. */
export async function runPool<T>(concurrency: number, next: () => T | undefined, task: (item: T) => Promise<void>): Promise<void> {
  const lane = async () => {
    for (let item = next(); item !== undefined; item = next()) await task(item);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

/** The middle value (mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
