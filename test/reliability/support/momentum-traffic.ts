import type { FakeMomentum, FakeReply, RecordedRequest } from '../../fakes/fake-momentum.ts';
import { notificationOfRemap } from './salesforce-load.ts';

/** What the fake Momentum saw and answered, read the way the scenarios assert on it. */

export const REMAP_PATH = '/v1/meeting/remap';

export interface AnsweredRequest {
  request: RecordedRequest;
  /** The status the fake answered with (200 for accept). */
  status: number;
}

/**
 * Scripts the fake with `decide` and remembers each request's answer, so a scenario can tell the
 * 503s or 429s it saw from the deliveries that went through.
 */
export function answerAndRecord(fake: FakeMomentum, decide: (request: RecordedRequest, index: number) => FakeReply): AnsweredRequest[] {
  const answered: AnsweredRequest[] = [];
  fake.script((request, index) => {
    const reply = decide(request, index);
    answered.push({ request, status: statusOf(reply) });
    return reply;
  });
  return answered;
}

function statusOf(reply: FakeReply): number {
  if (reply.kind === 'delay') return statusOf(reply.then);
  return reply.kind === 'status' ? reply.status : 200;
}

/** How many remaps the fake received for each notification. */
export function forwardedCounts(requests: readonly RecordedRequest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of requests.filter((r) => r.path === REMAP_PATH)) {
    const id = notificationOfRemap(request.body);
    if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** Copies beyond the first, over all notifications. */
export const duplicatesIn = (counts: ReadonlyMap<string, number>) => [...counts.values()].reduce((sum, count) => sum + count - 1, 0);

/**
 * The most requests the fake saw in any interval beyond what a token bucket of `capacity` per
 * `windowMs` allows there: capacity (a full bucket) plus the refill over the interval widened by
 * `latencyMs` (a token is taken before the request travels). 0 or less means pacing held.
 */
export function worstExcessOverBucket(times: readonly number[], capacity: number, windowMs: number, latencyMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let worst = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < sorted.length; i += 1) {
    for (let j = i; j < sorted.length; j += 1) {
      const allowed = capacity + ((sorted[j]! - sorted[i]! + latencyMs) * capacity) / windowMs;
      worst = Math.max(worst, j - i + 1 - Math.floor(allowed));
    }
  }
  return worst;
}
