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

/**
 * The sum of every sample of `name` in a Prometheus text exposition whose labels include `labels`
 * (0 when there is none): enough to read a counter or a gauge from /metrics after a run.
 */
export function metricSum(exposition: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of exposition.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) sum += Number(match[3]);
  }
  return sum;
}
