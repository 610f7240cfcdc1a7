import { metricSum } from './prometheus-text.ts';

/** One scrape of a bridge's /metrics (no METRICS_TOKEN is set in the benchmarks). */
export async function scrapeMetrics(bridgeUrl: string): Promise<string> {
  const response = await fetch(new URL('/metrics', bridgeUrl), { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  return response.text();
}

/** Jobs of `kinds` still pending or running, store-wide (the gauge reads the store at scrape time). */
export async function unfinishedJobs(bridgeUrl: string, kinds: readonly string[]): Promise<number> {
  const text = await scrapeMetrics(bridgeUrl);
  return kinds.reduce(
    (sum, kind) => sum + metricSum(text, 'bridge_jobs', { kind, state: 'pending' }) + metricSum(text, 'bridge_jobs', { kind, state: 'running' }),
    0,
  );
}
