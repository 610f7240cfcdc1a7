import { remapJob as deliveryRemapJob } from '../../src/momentum/delivery-jobs.ts';
import type { RemapRequest } from '../../src/momentum/schemas.ts';
import type { NewJob } from '../../src/store/types.ts';

/** The remap the mapping makes for a Salesforce Event (one distinct meeting per index). */
export function remapRequest(index: number): RemapRequest {
  return {
    salesforceRecords: { opportunityId: '0068d00000AbCdEAAV' },
    meetingDetails: { title: `Bench meeting ${index}`, startTime: '2026-03-02T16:00:00.000Z', hostEmail: 'rep@example.com' },
  };
}

/**
 * A `remap` job made the one way the bridge makes them (src/momentum/delivery-jobs.ts): coalesced
 * on the meeting, drawing a call from Momentum's budget, a live change, flags off. A backlog of
 * these is what a paced claim walks through in production.
 */
export function remapJob(index: number): NewJob {
  return deliveryRemapJob(remapRequest(index), { triggerSummary: false, triggerAiSignals: false });
}

/** Jobs `from`…`from + count - 1` in batches of `batchSize`. */
export function* remapJobBatches(from: number, count: number, batchSize: number): Generator<NewJob[]> {
  for (let start = from; start < from + count; start += batchSize) {
    const end = Math.min(from + count, start + batchSize);
    yield Array.from({ length: end - start }, (_, offset) => remapJob(start + offset));
  }
}
