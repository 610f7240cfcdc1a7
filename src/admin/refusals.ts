import type { Refusal, RefusalBatch, RefusalStore } from '../store/types.ts';
import type { RefusalQuery, RefusalSummary } from './refusal-schemas.ts';
import { iso } from './views.ts';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
// As many as the store keeps per route and reason.
const EXAMPLES_SHOWN = 5;

const pairKey = (route: string, reason: string) => JSON.stringify([route, reason]);

/**
 * Refused inbound requests per route and reason over the last hours: the stored counts (every
 * instance's flushes) plus this instance's counts not written yet, so the answer is current here.
 */
export async function refusalSummary(
  store: { refusals: RefusalStore },
  query: RefusalQuery,
  pending: () => RefusalBatch = () => ({ buckets: [], examples: [] }),
  now = Date.now(),
): Promise<RefusalSummary> {
  // From the start of a minute (counts are kept per minute): the answer, and its ETag, change only
  // when a count does, so the console's polling is answered 304 in between.
  const since = Math.floor((now - query.hours * HOUR_MS) / MINUTE_MS) * MINUTE_MS;
  const stored = await store.refusals.totals(since);
  const unwritten = pending();
  const counts = new Map<string, { route: string; reason: string; count: number; lastAt: number }>();
  const add = (entry: { route: string; reason: string; count: number; lastAt: number }) => {
    const key = pairKey(entry.route, entry.reason);
    const known = counts.get(key);
    if (known === undefined) counts.set(key, { ...entry });
    else counts.set(key, { ...known, count: known.count + entry.count, lastAt: Math.max(known.lastAt, entry.lastAt) });
  };
  for (const entry of stored.counts) add(entry);
  for (const bucket of unwritten.buckets) if (bucket.bucketStart >= since) add(bucket);

  const examples = new Map<string, Refusal[]>();
  for (const example of [...stored.examples, ...unwritten.examples.filter((example) => example.at >= since)]) {
    const key = pairKey(example.route, example.reason);
    examples.set(key, [...(examples.get(key) ?? []), example]);
  }
  const routes = [...counts.entries()]
    .map(([key, entry]) => ({
      route: entry.route,
      reason: entry.reason,
      count: entry.count,
      lastAt: iso(entry.lastAt),
      examples: (examples.get(key) ?? [])
        .sort((a, b) => b.at - a.at)
        .slice(0, EXAMPLES_SHOWN)
        .map((example) => ({ at: iso(example.at), sender: example.sender, reason: example.reason, route: example.route })),
    }))
    .sort((a, b) => b.count - a.count || a.route.localeCompare(b.route) || a.reason.localeCompare(b.reason));
  return { windowHours: query.hours, since: iso(since), total: routes.reduce((sum, entry) => sum + entry.count, 0), routes };
}
