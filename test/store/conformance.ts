import { activityConformance } from './conformance-activity.ts';
import { budgetLogConformance } from './conformance-budget-logs.ts';
import { claimConformance } from './conformance-claim.ts';
import { deliveredConformance } from './conformance-delivered.ts';
import { enqueueConformance } from './conformance-enqueue.ts';
import { finishConformance } from './conformance-finish.ts';
import type { StoreHarness } from './conformance-fixture.ts';
import { ingestConformance } from './conformance-ingest.ts';
import { matchConformance } from './conformance-matches.ts';
import { meetingConformance } from './conformance-meetings.ts';
import { orderingConformance } from './conformance-ordering.ts';
import { pacingConformance } from './conformance-pacing.ts';
import { priorityConformance } from './conformance-priority.ts';
import { pubsubConformance } from './conformance-pubsub.ts';
import { readModelConformance } from './conformance-read-models.ts';
import { readConformance } from './conformance-reads.ts';
import { refusalConformance } from './conformance-refusals.ts';
import { replayConformance } from './conformance-replays.ts';

export type { StoreHarness, TestDatabase } from './conformance-fixture.ts';

/** The one suite both engines must pass: the same tests, part by part, against each engine. */
export function registerStoreConformance(harness: StoreHarness): void {
  ingestConformance(harness);
  enqueueConformance(harness);
  claimConformance(harness);
  finishConformance(harness);
  pacingConformance(harness);
  budgetLogConformance(harness);
  priorityConformance(harness);
  orderingConformance(harness);
  readConformance(harness);
  readModelConformance(harness);
  activityConformance(harness);
  replayConformance(harness);
  matchConformance(harness);
  meetingConformance(harness);
  deliveredConformance(harness);
  refusalConformance(harness);
  pubsubConformance(harness);
}
