import { setTimeout as sleep } from 'node:timers/promises';

import { Agent } from 'undici';

import { createMessageFactory, postOutboundMessage, subjectOf } from '../lib/outbound-messages.ts';
import { type Distribution, distribution } from '../lib/stats.ts';
import { eventCreate, idFrom } from './changes.ts';
import { EVENTS, type PubSubWorld } from './world.ts';

/**
 * Idle latency of each Salesforce path into one bridge, in turns: a CDC Event CREATE committed in
 * the fake Pub/Sub, then an Outbound Message of the same kind of Event POSTed to the bridge, each
 * timed from the commit (the POST's send) to the fake Momentum having the remap. One at a time,
 * each after the previous remap arrived and a gap: the bridge is idle when each begins.
 */

const GAP_MS = 50;
const WAIT_FOR_REMAP_MS = 30_000;
// CDC Event ids far from the Outbound Messages' own sequence: every remap title is distinct.
const CDC_SEQUENCE_BASE = 10_000_000;

export interface LatencyResult {
  cdc: Distribution;
  outbound: Distribution;
  missing: number;
}

export async function measureLatency(world: PubSubWorld, bridgeUrl: string, count: number, firstSequence: number): Promise<LatencyResult> {
  const agent = new Agent({ connections: 1 });
  const nextMessage = createMessageFactory(1, firstSequence);
  const cdc: number[] = [];
  const outbound: number[] = [];
  let missing = 0;
  const timeOne = async (title: string, send: () => Promise<void> | void, into: number[]) => {
    const sentAt = performance.now();
    await send();
    const arrivedAt = await world.remaps.of(title, WAIT_FOR_REMAP_MS);
    if (arrivedAt === undefined) missing += 1;
    else into.push(arrivedAt - sentAt);
    await sleep(GAP_MS);
  };
  try {
    for (let n = 0; n < count; n++) {
      const sequence = CDC_SEQUENCE_BASE + firstSequence + n;
      const recordId = idFrom('00U', sequence);
      await timeOne(subjectOf(recordId), () => void world.pubsub.publish(EVENTS, eventCreate(recordId, sequence)), cdc);
      const { xml, recordIds } = nextMessage();
      await timeOne(subjectOf(recordIds[0] ?? ''), () => postOutboundMessage(agent, bridgeUrl, xml), outbound);
    }
  } finally {
    await agent.close();
  }
  return { cdc: distribution(cdc), outbound: distribution(outbound), missing };
}
