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
