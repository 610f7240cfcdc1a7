import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { startBridgeProcess } from '../lib/bridge-process.ts';
import { mb } from '../lib/stats.ts';
import { type LatencyResult, measureLatency } from './latency-phase.ts';
import { measureReplay, type ReplayResult } from './replay-phase.ts';
import { measureResubscribe, type ResubscribeResult } from './resubscribe-phase.ts';
import { rssOf } from './rss.ts';
import { startPubSubWorld } from './world.ts';

/** One engine's three phases: latency and crash recovery on one store, then the replay on a fresh one. */

export type Engine = 'SQLite' | 'PostgreSQL';

export interface EngineResult {
  engine: Engine;
  latency: LatencyResult;
  /** The bridge's RSS (MB) after the latency phase: idle, streaming both channels. */
  idleMb: number;
  /** RSS (MB) 3 s after start, idle: with SALESFORCE_PUBSUB off, then on (both streams open). */
  startedOffMb: number;
  startedOnMb: number;
  resubscribe: Omit<ResubscribeResult, 'bridge'>;
  replay: ReplayResult;
}

export interface PhaseSizes {
  changes: number;
  warmup: number;
  replay: number;
  replayDeadlineMs: number;
}

/** A store URL for a phase: a fresh SQLite file in `dir`, or the PostgreSQL schema given. */
export type StoreFor = (phase: 'live' | 'replay', run: (databaseUrl: string) => Promise<void>) => Promise<void>;

export const sqliteStores = (): StoreFor => async (phase, run) => {
  // The store outlives one bridge process (the crash phase restarts on it), so not in the bridge's own directory.
  const dir = mkdtempSync(path.join(tmpdir(), `bench-pubsub-${phase}-`));
  try {
    await run(`sqlite:${path.join(dir, 'bridge.db')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

// Long enough after "listening" for the Pub/Sub sign-in, the schemas and both streams.
const SETTLE_MS = 3_000;

/** The RSS (MB) of a bridge started with `env`, SETTLE_MS after it listens; it is stopped afterwards. */
async function startedRss(env: Record<string, string>): Promise<number> {
  const bridge = await startBridgeProcess(env);
  try {
    await sleep(SETTLE_MS);
    return mb(rssOf(bridge.pid).rss);
  } finally {
    await bridge.stop();
  }
}

async function livePhases(databaseUrl: string, sizes: PhaseSizes) {
  const world = await startPubSubWorld();
  try {
    const env = world.env(databaseUrl, 'LATEST');
    const startedOffMb = await startedRss({ ...env, SALESFORCE_PUBSUB: 'off' });
    const first = await startBridgeProcess(env);
    try {
      await sleep(SETTLE_MS);
      const startedOnMb = mb(rssOf(first.pid).rss);
      // Warm-up (JIT, connections, database pages, the schemas fetched), not measured.
      await measureLatency(world, first.url, sizes.warmup, 1);
      const latency = await measureLatency(world, first.url, sizes.changes, 1_000);
      const idleMb = mb(rssOf(first.pid).rss);
      const { bridge, ...resubscribe } = await measureResubscribe(world, first, env);
      await bridge.stop();
      return { latency, idleMb, startedOffMb, startedOnMb, resubscribe };
    } finally {
      await first.stop();
    }
  } finally {
    await world.close();
  }
}

async function replayPhase(databaseUrl: string, sizes: PhaseSizes) {
  const world = await startPubSubWorld();
  try {
    return await measureReplay(world, world.env(databaseUrl, 'EARLIEST'), sizes.replay, sizes.replayDeadlineMs);
  } finally {
    await world.close();
  }
}

export async function measureEngine(engine: Engine, stores: StoreFor, sizes: PhaseSizes): Promise<EngineResult> {
  let live: Awaited<ReturnType<typeof livePhases>> | undefined;
  let replay: ReplayResult | undefined;
  await stores('live', async (url) => void (live = await livePhases(url, sizes)));
  await stores('replay', async (url) => void (replay = await replayPhase(url, sizes)));
  if (live === undefined || replay === undefined) throw new Error(`${engine}: a phase did not run`);
  return { engine, ...live, replay };
}
