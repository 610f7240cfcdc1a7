import { setTimeout as sleep } from 'node:timers/promises';

import { startBridgeProcess } from '../lib/bridge-process.ts';
import { mb } from '../lib/stats.ts';
import { storedReplayIds } from './admin.ts';
import { eventCreate, idFrom, opportunityCreate } from './changes.ts';
import { rssOf } from './rss.ts';
import { EVENTS, OPPORTUNITIES, type PubSubWorld } from './world.ts';

/**
 * A replay of a large backlog: `count` changes (Event and Opportunity CREATEs in turn, on their
 * two channels) committed in the fake Pub/Sub first, then a bridge on a fresh store subscribing
 * from EARLIEST. Its RSS is sampled until its stored cursors name the last replay id of both
 * channels (every change stored) or the deadline passes; progress is read from GET /admin/pubsub.
 */

// The first Subscribe request is looked for this often: the store rate is timed from it.
const OPEN_POLL_MS = 10;
// Progress and RSS are read this often; VmHWM holds the peak between two reads.
const PROGRESS_MS = 500;

export interface ReplayResult {
  published: number;
  publishMs: number;
  stored: number;
  /** From the first Subscribe request to the last change stored (or the deadline). */
  storeMs: number;
  finished: boolean;
  peakMb: number;
  finalMb: number;
  /** RSS (MB) when a quarter, half, three quarters and all of the changes were stored. */
  quartersMb: number[];
}

function publishBacklog(world: PubSubWorld, count: number): Map<string, Map<string, number>> {
  const positions = new Map([
    [EVENTS, new Map<string, number>()],
    [OPPORTUNITIES, new Map<string, number>()],
  ]);
  for (let n = 0; n < count; n++) {
    const [topic, change] = n % 2 === 0 ? [EVENTS, eventCreate(idFrom('00U', n), n)] : [OPPORTUNITIES, opportunityCreate(idFrom('006', n), n)];
    const published = world.pubsub.publish(topic, change);
    const ofTopic = positions.get(topic)!;
    ofTopic.set(published.replayId.toString('hex'), ofTopic.size + 1);
  }
  return positions;
}

export async function measureReplay(world: PubSubWorld, env: Record<string, string>, count: number, deadlineMs: number): Promise<ReplayResult> {
  const publishStarted = performance.now();
  const positions = publishBacklog(world, count);
  const publishMs = performance.now() - publishStarted;
  const seen = world.pubsub.fetchRequests.length;

  const bridge = await startBridgeProcess(env);
  const deadline = performance.now() + deadlineMs;
  let stored = 0;
  let openedAt = Number.NaN;
  let doneAt = Number.NaN;
  const quarters: number[] = [];
  const watching = setInterval(() => {
    if (Number.isNaN(openedAt) && world.pubsub.fetchRequests.length > seen) openedAt = performance.now();
  }, OPEN_POLL_MS);
  try {
    while (performance.now() < deadline) {
      const ids = await storedReplayIds(bridge.url);
      stored = 0;
      for (const [topic, ofTopic] of positions) stored += ofTopic.get(ids.get(topic) ?? '') ?? 0;
      const { rss } = rssOf(bridge.pid);
      while (quarters.length < 4 && stored >= ((quarters.length + 1) * count) / 4) quarters.push(mb(rss));
      if (stored >= count) {
        doneAt = performance.now();
        break;
      }
      await sleep(PROGRESS_MS);
    }
    const { rss, peak } = rssOf(bridge.pid);
    const endedAt = Number.isNaN(doneAt) ? performance.now() : doneAt;
    return {
      published: count,
      publishMs,
      stored,
      storeMs: endedAt - openedAt,
      finished: !Number.isNaN(doneAt),
      peakMb: mb(peak),
      finalMb: mb(rss),
      quartersMb: quarters,
    };
  } finally {
    clearInterval(watching);
    await bridge.stop();
  }
}
