import { setTimeout as sleep } from 'node:timers/promises';

import { Agent } from 'undici';

import { arrivals, titleOf } from './lib/arrivals.ts';
import { bridgeEnv, startBridgeProcess } from './lib/bridge-process.ts';
import { startMomentumFake } from './lib/momentum-fake.ts';
import { createMessageFactory, postOutboundMessage, subjectOf } from './lib/outbound-messages.ts';
import { onPostgres } from './lib/pg-schema.ts';
import { remapRequest } from './lib/remap-jobs.ts';
import { type BenchResult, measure, reportResult, tableOf, type TargetRow, targetRow } from './lib/report.ts';
import { type Distribution, distribution } from './lib/stats.ts';

/**
 * bench:latency: how long an idle bridge takes from acknowledging a Salesforce notification to
 * Momentum having the remap, on SQLite and on PostgreSQL. The bridge is `node src/server.ts` in a
 * child process, paced as in production but with a budget one message at a time never exhausts;
 * the sender and the fake Momentum share this process, so the ack and the remap's arrival are
 * read from one clock. Baseline (the floor), in the same run: the same fake receiving a direct
 * undici POST of a remap from this process.
 */

const MESSAGES = Number(process.env.BENCH_LATENCY_MESSAGES ?? 200);
const WARMUP_MESSAGES = 20;
// Between messages: the bridge finishes the previous remap's bookkeeping and is idle again.
const GAP_MS = 20;
const WAIT_FOR_REMAP_MS = 30_000;
/** Pacing on (the claim reads and writes the call log as in production), never the wait: ≤ 50 calls/s go. */
const RATE_LIMIT = '100/1s';
const GOAL_MS = { SQLite: 10, PostgreSQL: 50 } as const;
type Engine = keyof typeof GOAL_MS;

interface EngineLatency {
  engine: Engine;
  ack: Distribution;
  ackToRemap: Distribution;
  floor: Distribution;
  missing: number;
  duplicates: number;
}

/** One message at a time, each sent GAP_MS after the previous remap arrived. */
async function bridgePhase(bridgeUrl: string, remaps: ReturnType<typeof arrivals>, count: number, firstSequence: number) {
  const agent = new Agent({ connections: 1 });
  const nextMessage = createMessageFactory(1, firstSequence);
  const ack: number[] = [];
  const ackToRemap: number[] = [];
  let missing = 0;
  try {
    for (let sent = 0; sent < count; sent++) {
      const { xml, recordIds } = nextMessage();
      const sentAt = performance.now();
      await postOutboundMessage(agent, bridgeUrl, xml);
      const ackAt = performance.now();
      ack.push(ackAt - sentAt);
      const arrivedAt = await remaps.of(subjectOf(recordIds[0] ?? ''), WAIT_FOR_REMAP_MS);
      if (arrivedAt === undefined) missing += 1;
      else ackToRemap.push(arrivedAt - ackAt);
      await sleep(GAP_MS);
    }
  } finally {
    await agent.close();
  }
  return { ack: distribution(ack), ackToRemap: distribution(ackToRemap), missing };
}

/** The floor: the same remap bodies POSTed straight to the same fake, send → the fake has the body. */
async function floorPhase(fakeUrl: string, floorArrivals: Map<string, number>, count: number, offset: number): Promise<Distribution> {
  const agent = new Agent({ connections: 1 });
  const times: number[] = [];
  try {
    for (let index = offset; index < offset + count; index++) {
      const request = remapRequest(index);
      const sentAt = performance.now();
      const response = await agent.request({
        origin: fakeUrl,
        path: '/v1/meeting/remap',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'bench-key', 'idempotency-key': String(index) },
        body: JSON.stringify(request),
      });
      await response.body.text();
      const arrivedAt = floorArrivals.get(request.meetingDetails?.title ?? '');
      if (arrivedAt !== undefined) times.push(arrivedAt - sentAt);
      await sleep(GAP_MS);
    }
  } finally {
    await agent.close();
  }
  return distribution(times);
}

async function measureEngine(engine: Engine, databaseUrl: string | undefined): Promise<EngineLatency> {
  const remaps = arrivals();
  const floorArrivals = new Map<string, number>();
  const fake = await startMomentumFake({
    clock: () => performance.now(),
    onCall: ({ body, at }) => {
      const title = titleOf(body);
      // The bridge's remaps carry the Event's record id (00U…) in the title; floor requests a number.
      if (title.startsWith(subjectOf('00U'))) remaps.record(title, at);
      else floorArrivals.set(title, at);
    },
  });
  try {
    const bridge = await startBridgeProcess(bridgeEnv(fake.url, RATE_LIMIT, databaseUrl));
    try {
      // Warm-up (JIT, connections, database pages), not measured.
      await bridgePhase(bridge.url, remaps, WARMUP_MESSAGES, 1);
      await floorPhase(fake.url, floorArrivals, WARMUP_MESSAGES, 0);
      const measured = await bridgePhase(bridge.url, remaps, MESSAGES, 1_000);
      const floor = await floorPhase(fake.url, floorArrivals, MESSAGES, 1_000);
      return { engine, ...measured, floor, duplicates: remaps.duplicates() };
    } finally {
      await bridge.stop();
    }
  } finally {
    await fake.close();
  }
}

function targets(result: EngineLatency): TargetRow[] {
  const goal = GOAL_MS[result.engine];
  return [
    targetRow({
      metric: `idle, ${result.engine}: ack → remap received, p50`,
      measured: result.ackToRemap.p50,
      unit: 'ms',
      baseline: { label: 'direct undici POST to the fake, p50', value: result.floor.p50 },
      target: `< ${goal} ms`,
      pass: (m) => m < goal && result.missing === 0,
    }),
    targetRow({
      metric: `idle, ${result.engine}: ack → remap received, p95`,
      measured: result.ackToRemap.p95,
      unit: 'ms',
      baseline: { label: 'direct undici POST to the fake, p95', value: result.floor.p95 },
      target: 'reported',
      pass: () => null,
    }),
  ];
}

export const runLatencyBench = (): Promise<BenchResult> =>
  measure('latency', 'Idle latency: notification acked → remap at the fake (npm run bench:latency)', async () => {
    const notes: string[] = [];
    const results: EngineLatency[] = [await measureEngine('SQLite', undefined)];
    const postgres = await onPostgres('latency', notes, (databaseUrl) => measureEngine('PostgreSQL', databaseUrl));
    if (postgres) results.push(postgres);
    for (const result of results) console.log(`latency ${result.engine}: ack → remap p50 ${result.ackToRemap.p50} ms, p95 ${result.ackToRemap.p95} ms`);

    notes.push(
      `The bridge is \`node src/server.ts\` in a child process with its defaults (WORKER_CONCURRENCY=4, LOG_LEVEL=info to a drained pipe; SQLite in a fresh directory, PostgreSQL in a fresh schema dropped afterwards), INBOUND_RATE_LIMIT=off and MOMENTUM_RATE_LIMIT=${RATE_LIMIT}: every remap is claimed with a call slot from the store's log as in production, and one message at a time never waits for one. Sender and fake Momentum share this process and its clock.`,
      `${MESSAGES} one-notification messages one at a time, each sent ${GAP_MS} ms after the previous remap arrived, after ${WARMUP_MESSAGES} warm-up messages. ack → remap: from the sender receiving the 200 ack to the fake having the whole remap body. Floor: a direct undici POST of a remap to the same fake, send → body received, one at a time with the same gap.`,
    );
    for (const result of results) {
      if (result.missing > 0)
        notes.push(`WARNING: ${result.engine}: ${result.missing} acknowledged notifications never reached the fake within ${WAIT_FOR_REMAP_MS / 1000} s.`);
      if (result.duplicates > 0) notes.push(`WARNING: ${result.engine}: ${result.duplicates} remaps arrived more than once.`);
    }

    return {
      settings: { messages: MESSAGES, gapMs: GAP_MS, rateLimit: RATE_LIMIT, postgres: postgres ? 'yes' : 'skipped' },
      targets: results.flatMap(targets),
      tables: [
        tableOf('Latency distribution (ms)', results, [
          ['Store', (r) => r.engine],
          ['Ack p50', (r) => r.ack.p50],
          ['Ack p95', (r) => r.ack.p95],
          ['Ack → remap p50', (r) => r.ackToRemap.p50],
          ['Ack → remap p90', (r) => r.ackToRemap.p90],
          ['Ack → remap p95', (r) => r.ackToRemap.p95],
          ['Ack → remap p99', (r) => r.ackToRemap.p99],
          ['Ack → remap max', (r) => r.ackToRemap.max],
          ['Floor p50', (r) => r.floor.p50],
          ['Floor p95', (r) => r.floor.p95],
          ['Remaps measured', (r) => r.ackToRemap.count],
        ]),
      ],
      notes,
    };
  });

if (import.meta.main) reportResult(await runLatencyBench());
