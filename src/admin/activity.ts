import { AppError } from '../core/errors.ts';
import type { AdminStore } from './admin-store.ts';
import { ACTIVITY_BUCKETS_MAX, type ActivityQueryInput, DELIVERY_KINDS } from './request-schemas.ts';
import type { Activity } from './response-schemas.ts';
import { iso } from './views.ts';

const BUCKET_MS = { minute: 60_000, hour: 3_600_000 } as const;
const DEFAULT_SPAN_MS = 86_400_000;

const refuse = (message: string) => new AppError('invalid_query', `invalid query: since: ${message}`, { status: 400, details: [{ path: 'since', message }] });

/**
 * The range and bucket length asked for. By default the last 24 hours in whole minutes or hours
 * (UTC): until is the end of the bucket holding now, since 24 hours before it. Buckets start at
 * since; the last ends at until, so it is shorter when the range is not a whole number of them.
 */
export function activityRange(query: ActivityQueryInput, now: number): { since: number; until: number; bucketMs: number } {
  const bucketMs = BUCKET_MS[query.bucket];
  const until = query.until ?? Math.floor(now / bucketMs) * bucketMs + bucketMs;
  const since = query.since ?? until - DEFAULT_SPAN_MS;
  // The schema checks since < until when both are given; a default may meet a since given later.
  if (since >= until) throw refuse('since must be before until');
  const buckets = Math.ceil((until - since) / bucketMs);
  if (buckets > ACTIVITY_BUCKETS_MAX) {
    throw refuse(`since to until holds ${buckets} ${query.bucket} buckets; at most ${ACTIVITY_BUCKETS_MAX}: narrow the range or use a longer bucket`);
  }
  return { since, until, bucketMs };
}

/** Inbound events and delivery outcomes per bucket, counted by the store (every instance's work). */
export async function activity(store: AdminStore, query: ActivityQueryInput, now = Date.now()): Promise<Activity> {
  const range = activityRange(query, now);
  const buckets = await store.activity({ ...range, kinds: DELIVERY_KINDS });
  return {
    buckets: buckets.map((bucket) => ({
      start: iso(bucket.start),
      inbound: bucket.inbound,
      delivered: bucket.succeeded,
      dead: bucket.dead,
      skipped: bucket.skipped,
      superseded: bucket.superseded,
      rematched: bucket.rematched,
    })),
  };
}
