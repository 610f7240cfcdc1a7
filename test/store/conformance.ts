import { activityConformance } from './conformance-activity.ts';
import { claimConformance } from './conformance-claim.ts';
import { enqueueConformance } from './conformance-enqueue.ts';
import { finishConformance } from './conformance-finish.ts';
import type { StoreHarness } from './conformance-fixture.ts';
import { ingestConformance } from './conformance-ingest.ts';
import { pacingConformance } from './conformance-pacing.ts';
import { readConformance } from './conformance-reads.ts';
import { replayConformance } from './conformance-replays.ts';

export type { StoreHarness, TestDatabase } from './conformance-fixture.ts';

/** The one suite both engines must pass: the same tests against SQLite and PostgreSQL. */
export function registerStoreConformance(harness: StoreHarness): void {
  ingestConformance(harness);
  enqueueConformance(harness);
  claimConformance(harness);
  finishConformance(harness);
  pacingConformance(harness);
  readConformance(harness);
  activityConformance(harness);
  replayConformance(harness);
}
