import { type Distribution, distribution } from '../lib/stats.ts';
import { type AdminClient, cursorOfPage, openConsole } from './admin-client.ts';
import { lastThirtyDays, type Sample } from './sample.ts';

/**
 * The operator's reads, each timed SAMPLES times one after another against an otherwise idle
 * bridge (after one warm-up pass over all of them): what an operator waits for when opening the
 * console, paging, filtering and searching a year of deliveries.
 */

export const SAMPLES = Number(process.env.BENCH_YEAR_READ_SAMPLES ?? 30);
/** A read slower than this in total stops early (after at least MIN_SAMPLES): the run stays bounded when a read takes seconds. */
const READ_BUDGET_MS = 20_000;
const MIN_SAMPLES = 3;
/** A warm-up read this slow is kept as a sample: warming changes nothing that matters at that scale, and the run stays shorter. */
const SLOW_WARMUP_MS = 1_000;
const withinBudget = (done: number, started: number) => done < SAMPLES && (done < MIN_SAMPLES || performance.now() - started < READ_BUDGET_MS);

export interface ReadResult {
  name: string;
  path: string;
  latency: Distribution;
  /** Answers other than 200. */
  failed: number;
  /** Items on the page (listings): how many a search found, up to the page size. */
  items: number | undefined;
}

interface Read {
  name: string;
  path: string;
}

const q = (text: string) => `/admin/deliveries?q=${encodeURIComponent(text)}&limit=25`;

export async function readsOf(client: AdminClient, sample: Sample, yearEnd: number): Promise<Read[]> {
  const month = lastThirtyDays(yearEnd);
  const cursor = await cursorOfPage(client, 20);
  return [
    { name: 'GET /admin/stats', path: '/admin/stats' },
    { name: 'deliveries, first page', path: '/admin/deliveries?limit=25' },
    { name: 'deliveries, page 20 (cursor)', path: `/admin/deliveries?limit=25&cursor=${cursor}` },
    { name: 'deliveries ?state=dead', path: '/admin/deliveries?state=dead&limit=25' },
    { name: `deliveries ?q=<title word> (${sample.titleWord})`, path: q(sample.titleWord) },
    { name: 'deliveries ?q=<attendee email>', path: q(sample.buyerEmail) },
    { name: 'deliveries ?q=<18-char Salesforce id>', path: q(sample.opportunityId) },
    { name: 'deliveries ?q=<source id>', path: q(sample.sourceId) },
    { name: 'deliveries ?q=<word matching nothing>', path: q(sample.nowhereWord) },
    { name: 'deliveries ?salesforceId=<id>', path: `/admin/deliveries?salesforceId=${sample.opportunityId}&limit=25` },
    {
      name: 'activity, 30 days by hour',
      path: `/admin/activity?since=${encodeURIComponent(month.since)}&until=${encodeURIComponent(month.until)}&bucket=hour`,
    },
    { name: 'delivery detail', path: `/admin/deliveries/${sample.deliveryId}` },
    { name: 'events, first page', path: '/admin/events?limit=25' },
    { name: 'GET /metrics', path: '/metrics' },
  ];
}

/** The searches the operator load repeats: the ones above that read payloads. */
export const loadSearches = (sample: Sample): string[] =>
  [sample.titleWord, sample.buyerEmail, sample.opportunityId, sample.sourceId, sample.nowhereWord].map(q);

export async function measureReads(client: AdminClient, reads: readonly Read[], log: (line: string) => void): Promise<ReadResult[]> {
  const warmups = new Map<Read, number>();
  for (const read of reads) warmups.set(read, (await client.get(read.path)).ms);
  await openConsole(client);
  const results: ReadResult[] = [];
  for (const read of reads) {
    const warmup = warmups.get(read) ?? 0;
    const times: number[] = warmup >= SLOW_WARMUP_MS ? [warmup] : [];
    let failed = 0;
    let items: number | undefined;
    const started = performance.now() - (times[0] ?? 0);
    while (withinBudget(times.length, started)) {
      const answer = await client.get(read.path);
      times.push(answer.ms);
      if (answer.status !== 200) failed += 1;
      items = (answer.body as { items?: unknown[] } | undefined)?.items?.length;
    }
    const latency = distribution(times);
    log(`${read.name}: p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms (${times.length} reads)${failed > 0 ? `, ${failed} failed` : ''}`);
    results.push({ ...read, latency, failed, items });
  }
  const times: number[] = [];
  let failed = 0;
  const started = performance.now();
  while (withinBudget(times.length, started)) {
    const opened = await openConsole(client);
    times.push(opened.ms);
    failed += opened.failed;
  }
  const latency = distribution(times);
  log(`console opening: p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms`);
  results.push({
    name: 'the console opening (its first-paint calls)',
    path: 'stats; then stats, activity, events?source=salesforce&limit=1 → event → deliveries',
    latency,
    failed,
    items: undefined,
  });
  return results;
}
