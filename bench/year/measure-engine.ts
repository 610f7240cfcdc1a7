import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

import { bridgeEnv, startBridgeProcess } from '../lib/bridge-process.ts';
import { startMomentumFake } from '../lib/momentum-fake.ts';
import { ADMIN_KEY, createAdminClient } from './admin-client.ts';
import { loadSearches, measureReads, type ReadResult, readsOf } from './admin-reads.ts';
import { ensureFilled } from './ensure-store.ts';
import { type AckSample, createAckSender } from './live-traffic.ts';
import { type LoadOutcome, startOperatorLoad } from './operator-load.ts';
import { RETENTION_PHASE_DAYS, type RetentionPhase, retentionPhase } from './retention-phase.ts';
import { type Sample, sampleOf } from './sample.ts';
import { type Engine, type FillMeta, postgresBytes, postgresSchema, postgresSchemaUrl, sqliteBytes, sqliteFile } from './store-cache.ts';
import { WEBHOOK_SECRET } from './template-run.ts';
import { verifyFill } from './verify.ts';

/**
 * One engine's measurement: its filled store (made or reused), the real bridge (`node
 * src/server.ts`, a child process as the other benchmarks start it) on it with a fake Momentum,
 * the fill read back, the operator's reads, then the acknowledgement of inbound traffic idle and
 * under operator load, and the bridge's memory throughout.
 */

const IDLE_ACKS = Number(process.env.BENCH_YEAR_IDLE_ACKS ?? 200);
const WARMUP_ACKS = 20;
export const LOAD_MS = Number(process.env.BENCH_YEAR_LOAD_SECONDS ?? 20) * 1000;
/** Momentum's published budget (the default): the filled backlog goes out at that pace, as it would. */
const RATE_LIMIT = '100/15m';

export interface Memory {
  rssMb: number;
  peakMb: number;
}

export interface EngineMeasurement {
  engine: Engine;
  meta: FillMeta;
  reused: boolean;
  sample: Sample;
  verified: string[];
  reads: ReadResult[];
  idle: AckSample[];
  underLoad: AckSample[];
  load: LoadOutcome;
  /** A steady-state retention pass (its oldest day) and the acks timed while it ran. */
  retention: RetentionPhase;
  memory: { started: Memory; afterReads: Memory; end: Memory };
  /** The host's 1-minute load average when the bridge started and when the measuring ended: a shared host skews figures. */
  loadAverage: { started: number; ended: number };
  /** The store's size when the bridge stopped (measuring adds what it posted). */
  bytesAfter: number;
}

/** The child's resident and peak resident memory, as the kernel counts them. */
function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

export async function measureEngine(engine: Engine, events: number): Promise<EngineMeasurement> {
  const { meta, reused } = await ensureFilled(engine, events);
  const sample = sampleOf(events);
  const log = (line: string) => console.log(`year ${engine}: ${line}`);
  const fake = await startMomentumFake();
  try {
    const databaseUrl = engine === 'SQLite' ? `sqlite:${sqliteFile(events)}` : postgresSchemaUrl(events);
    const bridge = await startBridgeProcess(
      { ...bridgeEnv(fake.url, RATE_LIMIT, databaseUrl), ADMIN_API_KEYS: ADMIN_KEY, CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET },
      120_000,
    );
    const client = createAdminClient(bridge.url);
    const acks = createAckSender(bridge.url);
    let measured: Omit<EngineMeasurement, 'bytesAfter'>;
    const loadAtStart = loadavg()[0] ?? 0;
    try {
      const started = memoryOf(bridge.pid);
      const verified = await verifyFill(client, sample, meta);
      log(`read back: ${verified.join('; ')}`);
      const reads = await measureReads(client, await readsOf(client, sample, meta.yearEnd), log);
      const afterReads = memoryOf(bridge.pid);
      await acks.count(WARMUP_ACKS);
      const idle = await acks.count(IDLE_ACKS);
      const load = startOperatorLoad(client, loadSearches(sample));
      // The searches are running before the first timed ack, and go on until the last ack has its answer.
      await sleep(1000);
      const underLoad = await acks.until(performance.now() + LOAD_MS);
      const loadOutcome = await load.stop();
      const retention = await retentionPhase(databaseUrl, meta.yearEnd, (going) => acks.during(going));
      const end = memoryOf(bridge.pid);
      log(`acks idle ${idle.length}, under load ${underLoad.length}; ${loadOutcome.searches.count} searches under load`);
      log(
        `retention pass (RETENTION_DAYS=RETENTION_MEETING_DAYS=${RETENTION_PHASE_DAYS}): ${Math.round(retention.pass.durationMs)} ms, ${retention.pass.batches} batches, removed ${JSON.stringify(retention.pass.removed)}; ${retention.acks.length} acks meanwhile`,
      );
      measured = {
        engine,
        meta,
        reused,
        sample,
        verified,
        reads,
        idle,
        underLoad,
        load: loadOutcome,
        retention,
        memory: { started, afterReads, end },
        loadAverage: { started: loadAtStart, ended: loadavg()[0] ?? 0 },
      };
    } finally {
      await acks.close();
      await client.close();
      await bridge.stop();
    }
    const bytesAfter = engine === 'SQLite' ? sqliteBytes(sqliteFile(events)) : await postgresBytes(postgresSchema(events));
    return { ...measured, bytesAfter };
  } finally {
    await fake.close();
  }
}
