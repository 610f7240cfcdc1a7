import { setTimeout as sleep } from 'node:timers/promises';

import { type BridgeChild, startBridgeProcess } from '../lib/bridge-process.ts';
import { subjectOf } from '../lib/outbound-messages.ts';
import { eventCreate, idFrom } from './changes.ts';
import { EVENTS, type PubSubWorld } from './world.ts';

/**
 * Recovery after a crash: the bridge is SIGKILLed (its lease stays held until it expires), a
 * change is committed while no bridge runs, and a new bridge starts on the same store. Timed from
 * the new process's spawn to its first Subscribe request at the fake (the stream open, after it
 * takes over the dead holder's lease) and to the fake Momentum having the missed change's remap.
 */

const DEADLINE_MS = 90_000;
const POLL_MS = 5;
const MISSED_SEQUENCE = 90_000_000;

export interface ResubscribeResult {
  toStreamOpenMs: number;
  toRemapMs: number;
  /** The replay preset the first request asked for: CUSTOM resumes after the stored id. */
  preset: string;
  /** The new bridge, running on the same store. */
  bridge: BridgeChild;
}

async function firstRequestAfter(world: PubSubWorld, seen: number, deadline: number): Promise<{ at: number; preset: string }> {
  while (performance.now() < deadline) {
    const request = world.pubsub.fetchRequests[seen];
    if (request !== undefined) return { at: performance.now(), preset: request.preset };
    await sleep(POLL_MS);
  }
  return { at: Number.NaN, preset: 'none' };
}

export async function measureResubscribe(world: PubSubWorld, killed: BridgeChild, env: Record<string, string>): Promise<ResubscribeResult> {
  await killed.kill();
  const recordId = idFrom('00U', MISSED_SEQUENCE);
  world.pubsub.publish(EVENTS, eventCreate(recordId, MISSED_SEQUENCE));
  const seen = world.pubsub.fetchRequests.length;

  const spawnedAt = performance.now();
  const deadline = spawnedAt + DEADLINE_MS;
  const opened = firstRequestAfter(world, seen, deadline);
  const arrived = world.remaps.of(subjectOf(recordId), DEADLINE_MS);
  const bridge = await startBridgeProcess(env);
  const [open, remapAt] = await Promise.all([opened, arrived]);
  return {
    toStreamOpenMs: open.at - spawnedAt,
    toRemapMs: remapAt === undefined ? Number.NaN : remapAt - spawnedAt,
    preset: open.preset,
    bridge,
  };
}
