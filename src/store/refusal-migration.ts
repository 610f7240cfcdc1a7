/**
 * The tables behind RefusalStore (refusal-types.ts), listed in src/store/migrations.ts as version 15.
 * Both stay small: counts per route, reason and minute for the kept hours, and a few examples per
 * route and reason; each flush prunes them (refusal-sql.ts).
 */
export const REFUSAL_MIGRATION = {
  version: 15,
  name: 'refused inbound requests: counts per minute and recent examples',
  statements: [
    `CREATE TABLE refusal_counts (
      route TEXT NOT NULL,
      reason TEXT NOT NULL,
      bucket_start {bigint} NOT NULL,
      refused {bigint} NOT NULL,
      last_at {bigint} NOT NULL,
      PRIMARY KEY (route, reason, bucket_start)
    )`,
    // The admin's window and the prune both read by time.
    `CREATE INDEX refusal_counts_bucket ON refusal_counts (bucket_start)`,
    `CREATE TABLE refusal_examples (
      id {id},
      route TEXT NOT NULL,
      reason TEXT NOT NULL,
      sender TEXT NOT NULL,
      at {bigint} NOT NULL
    )`,
    // Keeping the newest few of one route and reason reads them newest first.
    `CREATE INDEX refusal_examples_route ON refusal_examples (route, reason, at)`,
  ],
};
