import { setTimeout as sleep } from 'node:timers/promises';

import { Agent } from 'undici';

import { parseDuration } from '../src/core/durations.ts';
import { metricSum, scrapeMetrics, unfinishedJobs } from './lib/bridge-metrics.ts';
import { type BridgeChild, bridgeEnv, startBridgeProcess } from './lib/bridge-process.ts';
import { analyseBurst, type BurstAnalysis } from './lib/burst-analysis.ts';
import { burstMessage, burstStateOf } from './lib/burst-messages.ts';
import { type FakeCall, startMomentumFake } from './lib/momentum-fake.ts';
import { postOutboundMessage } from './lib/outbound-messages.ts';
import { onPostgres } from './lib/pg-schema.ts';
import { type BenchResult, measure, reportResult, tableOf, type TargetRow, targetRow } from './lib/report.ts';
import { round, runPool } from './lib/stats.ts';

/**
 * bench:quota: what a user feels under Momentum's rate limit. A burst of K meetings, each
 * receiving M successive Salesforce updates, reaches `node src/server.ts` (one bridge on SQLite;
 * two bridges sharing one PostgreSQL schema) paced by MOMENTUM_RATE_LIMIT, time-scaled; the fake
 * Momentum in this process enforces the same limit as a strict sliding window. Read from the
 * fake: calls made against K, how long until every meeting's final state was accepted against
 * the least the limit allows, the busiest window, 429s; and from the bridges' /metrics, claims
 * per call.
 */

const MEETINGS = Number(process.env.BENCH_QUOTA_MEETINGS ?? 60);
const UPDATES = Number(process.env.BENCH_QUOTA_UPDATES ?? 3);
const LIMIT_TEXT = process.env.BENCH_QUOTA_LIMIT ?? '20/10s';
const SENDERS = Number(process.env.BENCH_QUOTA_SENDERS ?? 4);
const PG_BRIDGES = 2;
const PACED_KINDS = ['remap', 'import'] as const;
const UNFINISHED_KINDS = ['map-event', ...PACED_KINDS] as const;

const LIMIT = parseLimit(LIMIT_TEXT);
/** ⌈K/N⌉·W: the least time K calls take under N per W (the theoretical minimum no pacer can beat). */
const LEAST_MS = Math.ceil(MEETINGS / LIMIT.requests) * LIMIT.windowMs;
/** Bounded: the least time, three windows more, and half a minute for processes to start and stop. */
const DEADLINE_MS = LEAST_MS + 3 * LIMIT.windowMs + 30_000;

function parseLimit(text: string): { requests: number; windowMs: number } {
  const [count, window] = text.split('/');
  const requests = Number(count);
  const windowMs = window === undefined ? undefined : parseDuration(window);
  if (!Number.isInteger(requests) || requests < 1 || windowMs === undefined)
    throw new Error(`BENCH_QUOTA_LIMIT: expected <requests>/<window> such as 20/10s, got ${text}`);
  return { requests, windowMs };
}

interface BurstRun {
  label: string;
  bridges: number;
  analysis: BurstAnalysis;
  /** Claims of paced jobs over every bridge. */
  claims: number;
  /** Remap jobs by final state, store-wide. */
  remapStates: Record<string, number>;
  /** From the first send to the last ack: how fast the burst came in. */
  ingestMs: number;
  startedAt: number;
  /** Every map-event, remap and import job final when the run ended. */
  drained: boolean;
}

/** Sends update 1 of every meeting, then update 2 of every meeting, …: a bulk change made M times. */
async function sendBurst(bridges: readonly BridgeChild[]): Promise<number> {
  const agent = new Agent({ connections: SENDERS });
  const order = Array.from({ length: MEETINGS * UPDATES }, (_, index) => ({
    meeting: index % MEETINGS,
    update: Math.floor(index / MEETINGS) + 1,
    sequence: index + 1,
  }));
  let next = 0;
  let lastAck = 0;
  try {
    await runPool(
      SENDERS,
      () => order[next++],
      async ({ meeting, update, sequence }) => {
        // Behind a load balancer, successive updates of one meeting reach different bridges.
        const bridge = bridges[(meeting + update) % bridges.length] as BridgeChild;
        await postOutboundMessage(agent, bridge.url, burstMessage(meeting, update, sequence));
        lastAck = Date.now();
      },
    );
  } finally {
    await agent.close();
  }
  return lastAck;
}

/** Polls `done` every 100 ms until it holds or the deadline passes; true when it held. */
async function until(done: () => boolean | Promise<boolean>, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    if (await done()) return true;
    await sleep(100);
  }
  return done();
}

async function burstRun(label: string, bridgeCount: number, databaseUrl: string | undefined): Promise<BurstRun> {
  const calls: FakeCall[] = [];
  const fake = await startMomentumFake({ limit: LIMIT, onCall: (call) => calls.push(call) });
  const bridges: BridgeChild[] = [];
  try {
    // One after the other: the first applies the migrations the second then finds done.
    for (let index = 0; index < bridgeCount; index++) bridges.push(await startBridgeProcess(bridgeEnv(fake.url, LIMIT_TEXT, databaseUrl)));
    const startedAt = Date.now();
    const deadline = startedAt + DEADLINE_MS;
    const lastAck = await sendBurst(bridges);
    const shape = { meetings: MEETINGS, updates: UPDATES, windowMs: LIMIT.windowMs };
    const analyse = () =>
      analyseBurst(
        calls.map((call) => ({ at: call.at, accepted: call.status === 200, state: burstStateOf(call.body) })),
        shape,
        startedAt,
      );
    await until(() => analyse().lastFinalAt !== undefined, deadline);
    // A call still queued after every final state would be spent budget: wait for it to go, to count it.
    const primary = bridges[0] as BridgeChild;
    const drained = await until(async () => (await unfinishedJobs(primary.url, UNFINISHED_KINDS)) === 0, deadline);
    const expositions = await Promise.all(bridges.map((bridge) => scrapeMetrics(bridge.url)));
    const claims = expositions.reduce(
      (sum, text) => sum + PACED_KINDS.reduce((kinds, kind) => kinds + metricSum(text, 'bridge_job_claims_total', { kind }), 0),
      0,
    );
    const remapStates = Object.fromEntries(
      ['succeeded', 'superseded', 'skipped', 'dead', 'pending', 'running'].map((state) => [
        state,
        metricSum(expositions[0] ?? '', 'bridge_jobs', { kind: 'remap', state }),
      ]),
    );
    return { label, bridges: bridgeCount, analysis: analyse(), claims, remapStates, ingestMs: lastAck - startedAt, startedAt, drained };
  } finally {
    await Promise.all(bridges.map((bridge) => bridge.stop()));
    await fake.close();
  }
}

function targets(run: BurstRun): TargetRow[] {
  const { analysis } = run;
  const expected = MEETINGS + analysis.sentBeforeLastUpdate;
  const finalMs = analysis.lastFinalAt === undefined ? Number.NaN : analysis.lastFinalAt - run.startedAt;
  return [
    targetRow({
      metric: `quota burst, ${run.label}: calls made`,
      measured: analysis.calls,
      unit: 'calls',
      baseline: { label: 'K meetings', value: MEETINGS },
      target: `K, + 1 per meeting sent before its last update (${analysis.sentBeforeLastUpdate}): ≤ ${expected}`,
      pass: (m) => m <= expected && analysis.notNewer === 0 && analysis.meetingsAtFinalState === MEETINGS,
    }),
    targetRow({
      metric: `quota burst, ${run.label}: time to the last meeting's final state`,
      measured: finalMs / 1000,
      unit: 's',
      baseline: { label: '⌈K/N⌉·W', value: LEAST_MS / 1000 },
      target: 'within one window of ⌈K/N⌉·W',
      pass: (m) => m * 1000 <= LEAST_MS + LIMIT.windowMs,
    }),
    targetRow({
      metric: `quota burst, ${run.label}: peak calls in any window`,
      measured: analysis.peakInWindow,
      unit: 'calls',
      baseline: { label: 'N', value: LIMIT.requests },
      target: '≤ N',
      pass: (m) => m <= LIMIT.requests,
    }),
    targetRow({ metric: `quota burst, ${run.label}: 429s`, measured: analysis.refused, unit: 'responses', target: '0', pass: (m) => m === 0 }),
    targetRow({
      metric: `quota burst, ${run.label}: claims per call`,
      measured: run.claims / Math.max(1, analysis.calls),
      unit: 'claims/call',
      target: '≤ 1.2',
      pass: (m) => m <= 1.2,
    }),
  ];
}

export const runQuotaBench = (): Promise<BenchResult> =>
  measure('quota', 'Quota burst: K meetings × M updates under MOMENTUM_RATE_LIMIT (npm run bench:quota)', async () => {
    const notes: string[] = [];
    const runs: BurstRun[] = [await burstRun('SQLite', 1, undefined)];
    console.log(`quota burst sqlite: ${JSON.stringify(runs[0]?.analysis)}`);
    const postgres = await onPostgres('quota', notes, (databaseUrl) => burstRun(`PostgreSQL, ${PG_BRIDGES} bridges`, PG_BRIDGES, databaseUrl));
    if (postgres) {
      runs.push(postgres);
      console.log(`quota burst postgres: ${JSON.stringify(postgres.analysis)}`);
    }

    notes.push(
      `Burst: ${MEETINGS} meetings (K) × ${UPDATES} updates (M), one Outbound Message per update: update 1 of every meeting, then update 2 of every meeting, and so on, from ${SENDERS} concurrent senders, each sending its next message on the ack. Every update of a meeting keeps its identity (Event Id, Subject, start: one coalescing key), links it to another Opportunity (so no update is "unchanged") and carries a later SystemModstamp. With ${PG_BRIDGES} bridges, successive updates of a meeting go to different bridges, as behind a load balancer.`,
      `The bridges are \`node src/server.ts\` with MOMENTUM_RATE_LIMIT=${LIMIT_TEXT} (Momentum's 100/15m, time-scaled) and otherwise their defaults (WORKER_CONCURRENCY=4, RETRY_SCHEDULE, LOG_LEVEL=info to a drained pipe; SQLite in a fresh directory, PostgreSQL in a fresh schema dropped afterwards). The fake Momentum refuses with 429 and Retry-After when ${LIMIT.requests} requests already arrived in (now − ${LIMIT.windowMs / 1000} s, now] (refused ones count), on its own clock, and records every request.`,
      `Calls made: every request that reached the fake, refused ones included. Coalescing makes it one call per meeting when all of a meeting's updates arrive before its call goes; a meeting already sent when a later update arrives needs one more call, and everything that arrives while that one waits for budget coalesces into it. The burst starts with a full budget, so the first window's N meetings are sent on update 1; "sent before its last update" counts the meetings whose first call carried an earlier update than the last, read from the bodies. The row also fails if any meeting missed its final state or a call carried no newer update than one already accepted for its meeting.`,
      `Time to the last meeting's final state: from the first send to the fake accepting the last meeting's update ${UPDATES}. ⌈K/N⌉·W = ${LEAST_MS / 1000} s is the time K calls take at N per W counted in whole windows; the last of them can go as early as one window sooner. Claims per call: bridge_job_claims_total of remap and import jobs, summed over the bridges, over calls made. The run ends once every map-event, remap and import job is final, so a late extra call would be counted; at most ${DEADLINE_MS / 1000} s.`,
    );
    for (const run of runs) {
      if (!run.drained) notes.push(`WARNING: ${run.label}: jobs were still pending or running at the deadline.`);
      if (run.analysis.unknown > 0) notes.push(`WARNING: ${run.label}: ${run.analysis.unknown} calls carried no meeting of the burst.`);
    }
    const windows = Math.max(...runs.map((run) => run.analysis.perWindow.length));

    return {
      settings: { meetings: MEETINGS, updates: UPDATES, limit: LIMIT_TEXT, senders: SENDERS, postgres: postgres ? 'yes' : 'skipped' },
      targets: runs.flatMap(targets),
      tables: [
        tableOf(`Burst of ${MEETINGS} meetings × ${UPDATES} updates at ${LIMIT_TEXT}`, runs, [
          ['Run', (run) => run.label],
          ['Calls', (run) => run.analysis.calls],
          ['429s', (run) => run.analysis.refused],
          ['Sent before last update', (run) => run.analysis.sentBeforeLastUpdate],
          ['Sent once, final state', (run) => run.analysis.sentOnce],
          ['Not newer than one sent', (run) => run.analysis.notNewer],
          ['Meetings at final state', (run) => run.analysis.meetingsAtFinalState],
          ['Last final state s', (run) => (run.analysis.lastFinalAt === undefined ? 'not reached' : round((run.analysis.lastFinalAt - run.startedAt) / 1000))],
          ['⌈K/N⌉·W s', () => LEAST_MS / 1000],
          ['Peak in a window', (run) => run.analysis.peakInWindow],
          ['Paced claims', (run) => run.claims],
          ['Claims per call', (run) => run.claims / Math.max(1, run.analysis.calls)],
          ['Burst acked in s', (run) => round(run.ingestMs / 1000)],
          [
            'Remap jobs: succeeded / superseded / skipped / dead',
            (run) => ['succeeded', 'superseded', 'skipped', 'dead'].map((state) => run.remapStates[state] ?? 0).join(' / '),
          ],
        ]),
        {
          title: `Calls per window of ${LIMIT.windowMs / 1000} s from the first send (429s included)`,
          columns: ['Run', ...Array.from({ length: windows }, (_, index) => `${(index * LIMIT.windowMs) / 1000}–${((index + 1) * LIMIT.windowMs) / 1000} s`)],
          rows: runs.map((run) => [run.label, ...Array.from({ length: windows }, (_, index) => run.analysis.perWindow[index] ?? 0)]),
        },
      ],
      notes,
    };
  });

if (import.meta.main) reportResult(await runQuotaBench());
