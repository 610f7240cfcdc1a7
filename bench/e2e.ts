import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { OUTBOUND_MESSAGE_PATH } from '../routes/salesforce.ts';
import { ORG_ID } from '../test/ingest/outbound-message-builder.ts';
import { startBenchFake } from './lib/bench-fake.ts';
import { startBridgeProcess } from './lib/bridge-process.ts';
import { createMessageFactory, subjectOf } from './lib/outbound-messages.ts';
import { remapRequest } from './lib/remap-jobs.ts';
import { type BenchResult, machine, renderMarkdown, targetRow, writeResult } from './lib/report.ts';
import { distribution, type Distribution, perSecond, round, runPool } from './lib/stats.ts';

/**
 * bench:e2e (issue 7): a Salesforce notification in → the remap received by the fake Momentum,
 * pacing off. The bridge is the real process entry (src/server.ts) in a child process with its
 * default SQLite store; the sender and the fake share this process, so the ack and the remap's
 * arrival are read from one clock. Baseline (the floor): the same fake receiving a direct undici
 * POST of a remap from this process.
 */

const IDLE_MESSAGES = Number(process.env.BENCH_E2E_IDLE ?? 200);
const LOAD_MESSAGES = Number(process.env.BENCH_E2E_LOAD ?? 2_000);
const LOAD_CONCURRENCY = Number(process.env.BENCH_E2E_CONCURRENCY ?? 16);
// Between idle messages: the bridge finishes the previous remap's bookkeeping and is idle again.
const IDLE_GAP_MS = 20;
const WAIT_FOR_REMAP_MS = 120_000;

interface Phase {
  ack: Distribution;
  ackToRemap: Distribution;
  sendToRemap: Distribution;
  missing: number;
  /** Acked messages per second over the phase (first send → last ack). */
  ackedPerSecond: number;
  /** Remaps received per second over the phase (first send → last remap). */
  deliveredPerSecond: number;
}

interface Sample {
  sentAt: number;
  ackAt: number;
}

function remapWaiters() {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  let duplicates = 0;
  return {
    onRemap(body: unknown, receivedAt: number) {
      const title = (body as { meetingDetails?: { title?: string } }).meetingDetails?.title ?? '';
      if (arrived.has(title)) return void (duplicates += 1);
      arrived.set(title, receivedAt);
      waiting.get(title)?.();
    },
    /** Resolves with the arrival time of the remap titled `title` (undefined after the deadline). */
    async arrival(title: string, timeoutMs: number): Promise<number | undefined> {
      if (!arrived.has(title)) {
        await Promise.race([new Promise<void>((resolve) => waiting.set(title, resolve)), sleep(timeoutMs)]);
        waiting.delete(title);
      }
      return arrived.get(title);
    },
    duplicates: () => duplicates,
  };
}

async function bridgePhase(bridgeUrl: string, remaps: ReturnType<typeof remapWaiters>, count: number, concurrency: number, firstSequence: number): Promise<Phase> {
  const agent = new Agent({ connections: concurrency });
  const nextMessage = createMessageFactory(1, firstSequence);
  const samples = new Map<string, Sample>();
  let sent = 0;
  try {
    await runPool(
      concurrency,
      () => (sent < count ? sent++ : undefined),
      async () => {
        const { xml, recordIds } = nextMessage();
        const sentAt = performance.now();
        const response = await agent.request({
          origin: bridgeUrl,
          path: OUTBOUND_MESSAGE_PATH,
          method: 'POST',
          headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' },
          body: xml,
        });
        await response.body.text();
        const ackAt = performance.now();
        if (response.statusCode !== 200) throw new Error(`bridge answered ${response.statusCode}`);
        const title = subjectOf(recordIds[0] ?? '');
        samples.set(title, { sentAt, ackAt });
        if (concurrency === 1) {
          await remaps.arrival(title, WAIT_FOR_REMAP_MS);
          await sleep(IDLE_GAP_MS);
        }
      },
    );
  } finally {
    await agent.close();
  }
  const ack: number[] = [];
  const ackToRemap: number[] = [];
  const sendToRemap: number[] = [];
  let missing = 0;
  let firstSend = Infinity;
  let lastAck = 0;
  let lastArrival = 0;
  for (const [title, sample] of samples) {
    const arrivedAt = await remaps.arrival(title, WAIT_FOR_REMAP_MS);
    ack.push(sample.ackAt - sample.sentAt);
    firstSend = Math.min(firstSend, sample.sentAt);
    lastAck = Math.max(lastAck, sample.ackAt);
    if (arrivedAt === undefined) {
      missing += 1;
      continue;
    }
    lastArrival = Math.max(lastArrival, arrivedAt);
    ackToRemap.push(arrivedAt - sample.ackAt);
    sendToRemap.push(arrivedAt - sample.sentAt);
  }
  return {
    ack: distribution(ack),
    ackToRemap: distribution(ackToRemap),
    sendToRemap: distribution(sendToRemap),
    missing,
    ackedPerSecond: perSecond(samples.size, lastAck - firstSend),
    deliveredPerSecond: perSecond(ackToRemap.length, lastArrival - firstSend),
  };
}

/** The floor: the same remap bodies POSTed straight to the same fake, send → the fake has the body. */
async function floorPhase(fakeUrl: string, arrivals: Map<string, number>, count: number, concurrency: number, offset: number): Promise<Distribution> {
  const agent = new Agent({ connections: concurrency });
  const times: number[] = [];
  let sent = 0;
  try {
    await runPool(
      concurrency,
      () => (sent < count ? offset + sent++ : undefined),
      async (index) => {
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
        const arrivedAt = arrivals.get(request.meetingDetails?.title ?? '');
        if (arrivedAt !== undefined) times.push(arrivedAt - sentAt);
        if (concurrency === 1) await sleep(IDLE_GAP_MS);
      },
    );
  } finally {
    await agent.close();
  }
  return distribution(times);
}

export async function runE2eBench(): Promise<BenchResult> {
  const startedAt = new Date();
  const machineInfo = machine();
  const remaps = remapWaiters();
  const floorArrivals = new Map<string, number>();
  const fake = await startBenchFake((body, receivedAt) => {
    const title = (body as { meetingDetails?: { title?: string } }).meetingDetails?.title ?? '';
    // The bridge's remaps carry the Event's record id (00U…) in the title; floor requests a number.
    if (title.startsWith(subjectOf('00U'))) remaps.onRemap(body, receivedAt);
    else floorArrivals.set(title, receivedAt);
  });
  const bridge = await startBridgeProcess({
    SALESFORCE_ORG_IDS: ORG_ID,
    MOMENTUM_API_BASE_URL: fake.url,
    MOMENTUM_RECEIVER_URL: fake.url,
    MOMENTUM_API_KEY: 'bench-key',
    MOMENTUM_RATE_LIMIT: 'off',
    // One loopback address sends everything; Salesforce sends from many.
    INBOUND_RATE_LIMIT: 'off',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  });
  let idle: Phase;
  let load: Phase;
  let floorIdle: Distribution;
  let floorLoad: Distribution;
  try {
    // A short warm-up (JIT, connections, SQLite pages), not measured.
    await bridgePhase(bridge.url, remaps, 20, 1, 1);
    await floorPhase(fake.url, floorArrivals, 20, 1, 0);
    idle = await bridgePhase(bridge.url, remaps, IDLE_MESSAGES, 1, 1_000);
    floorIdle = await floorPhase(fake.url, floorArrivals, IDLE_MESSAGES, 1, 1_000);
    load = await bridgePhase(bridge.url, remaps, LOAD_MESSAGES, LOAD_CONCURRENCY, 100_000);
    floorLoad = await floorPhase(fake.url, floorArrivals, LOAD_MESSAGES, LOAD_CONCURRENCY, 100_000);
  } finally {
    await bridge.stop();
    await fake.close();
  }

  const notes = [
    `The bridge is \`node src/server.ts\` in a child process with its defaults (SQLite file store, WORKER_CONCURRENCY=4, LOG_LEVEL=info to a drained pipe) and MOMENTUM_RATE_LIMIT=off, INBOUND_RATE_LIMIT=off. Sender and fake Momentum share this process and its clock.`,
    `Idle: ${IDLE_MESSAGES} one-notification messages one at a time, each sent ${IDLE_GAP_MS} ms after the previous remap arrived. Load: ${LOAD_MESSAGES} messages from ${LOAD_CONCURRENCY} concurrent senders (each sends its next message on the ack). 20 warm-up messages first.`,
    'ack → remap: from the sender receiving the 200 ack to the fake having the whole remap body. Floor: a direct undici POST of a remap to the same fake, send → body received.',
    `Under load the senders are acked at ${round(load.ackedPerSecond)} msg/s while remaps reach the fake at ${round(load.deliveredPerSecond)}/s: when ingest outruns delivery the backlog grows through the phase, and ack → remap under load is mostly time spent queued behind it (it grows with LOAD messages).`,
  ];
  const missing = idle.missing + load.missing;
  if (missing > 0) notes.push(`WARNING: ${missing} acknowledged notifications never reached the fake within ${WAIT_FOR_REMAP_MS / 1000} s.`);
  if (remaps.duplicates() > 0) notes.push(`${remaps.duplicates()} remaps arrived more than once.`);

  const row = (label: string, phase: Phase, floor: Distribution) => [
    label,
    phase.ack.p50,
    phase.ack.p99,
    phase.ackToRemap.p50,
    phase.ackToRemap.p90,
    phase.ackToRemap.p99,
    phase.sendToRemap.p50,
    floor.p50,
    floor.p99,
    phase.ackToRemap.count,
    phase.ackedPerSecond,
    phase.deliveredPerSecond,
  ];
  return {
    name: 'e2e',
    title: 'End to end: notification in → remap at the fake (npm run bench:e2e)',
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    machine: machineInfo,
    settings: { idleMessages: IDLE_MESSAGES, loadMessages: LOAD_MESSAGES, loadConcurrency: LOAD_CONCURRENCY },
    targets: [
      targetRow({
        metric: 'idle: ack → remap received, p50',
        measured: idle.ackToRemap.p50,
        unit: 'ms',
        baseline: { label: 'direct undici POST to the fake, p50', value: floorIdle.p50 },
        target: '< 10 ms',
        pass: (m) => m < 10 && idle.missing === 0,
      }),
      targetRow({
        metric: `load (${LOAD_CONCURRENCY} senders): ack → remap received, p50`,
        measured: load.ackToRemap.p50,
        unit: 'ms',
        baseline: { label: 'direct undici POST, same concurrency, p50', value: floorLoad.p50 },
        target: 'reported (no target)',
        pass: () => null,
      }),
    ],
    tables: [
      {
        title: 'Latency distribution (ms)',
        columns: [
          'Phase',
          'Ack p50',
          'Ack p99',
          'Ack → remap p50',
          'Ack → remap p90',
          'Ack → remap p99',
          'Send → remap p50',
          'Floor p50',
          'Floor p99',
          'Remaps measured',
          'Acked msg/s',
          'Delivered remaps/s',
        ],
        rows: [row('idle', idle, floorIdle), row(`load (${LOAD_CONCURRENCY} senders)`, load, floorLoad)],
      },
    ],
    notes,
  };
}

if (import.meta.main) {
  const result = await runE2eBench();
  console.log(`wrote ${writeResult(result)}\n`);
  console.log(renderMarkdown([result], result.startedAt));
}
