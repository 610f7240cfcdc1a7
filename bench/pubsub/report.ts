import { type Table, tableOf, type TargetRow, targetRow } from '../lib/report.ts';
import { perSecond } from '../lib/stats.ts';
import type { EngineResult, PhaseSizes } from './measure-engine.ts';
import { RATE_LIMIT } from './world.ts';

/** bench:pubsub's summary rows, detail tables and method notes. */

const LATENCY_GOAL_MS = 1_000;
const RECOVERY_GOAL_MS = 30_000;
const MEMORY_GOAL_MB = 200;

const storeRate = (r: EngineResult) => perSecond(r.replay.stored, r.replay.storeMs);

export function pubsubTargets(r: EngineResult): TargetRow[] {
  const e = r.engine;
  const latencyRow = (label: 'p50' | 'p99') =>
    targetRow({
      metric: `${e}: CDC Event change → remap received, ${label}`,
      measured: r.latency.cdc[label],
      unit: 'ms',
      baseline: { label: `Outbound Message of the same Event → remap, ${label}`, value: r.latency.outbound[label] },
      target: `< ${LATENCY_GOAL_MS} ms`,
      pass: (m) => m < LATENCY_GOAL_MS && r.latency.missing === 0,
    });
  return [
    latencyRow('p50'),
    latencyRow('p99'),
    targetRow({
      metric: `${e}: after SIGKILL, new bridge start → stream open`,
      measured: r.resubscribe.toStreamOpenMs,
      unit: 'ms',
      target: `< ${RECOVERY_GOAL_MS / 1000} s`,
      pass: (m) => m < RECOVERY_GOAL_MS,
    }),
    targetRow({
      metric: `${e}: after SIGKILL, new bridge start → remap of the change made while down`,
      measured: r.resubscribe.toRemapMs,
      unit: 'ms',
      target: `< ${RECOVERY_GOAL_MS / 1000} s`,
      pass: (m) => m < RECOVERY_GOAL_MS,
    }),
    targetRow({
      metric: `${e}: ${r.replay.published.toLocaleString('en-US')}-change replay from EARLIEST, peak RSS`,
      measured: r.replay.peakMb,
      unit: 'MB',
      baseline: { label: 'the same bridge idle, streaming', value: r.idleMb },
      target: `< ${MEMORY_GOAL_MB} MB, all stored`,
      pass: (m) => m < MEMORY_GOAL_MB && r.replay.finished,
    }),
    targetRow({
      metric: `${e}: replay, changes stored per second`,
      measured: storeRate(r),
      unit: '/s',
      target: 'reported',
      pass: () => null,
    }),
  ];
}

export function pubsubTables(results: readonly EngineResult[]): Table[] {
  return [
    tableOf('Idle latency, commit (or POST sent) → remap at the fake Momentum (ms)', results, [
      ['Store', (r) => r.engine],
      ['CDC p50', (r) => r.latency.cdc.p50],
      ['CDC p90', (r) => r.latency.cdc.p90],
      ['CDC p99', (r) => r.latency.cdc.p99],
      ['CDC max', (r) => r.latency.cdc.max],
      ['Outbound Message p50', (r) => r.latency.outbound.p50],
      ['Outbound Message p90', (r) => r.latency.outbound.p90],
      ['Outbound Message p99', (r) => r.latency.outbound.p99],
      ['Outbound Message max', (r) => r.latency.outbound.max],
      ['Changes measured (each path)', (r) => r.latency.cdc.count],
    ]),
    tableOf('Crash recovery: SIGKILL, one change committed while down, new bridge on the same store (ms from its spawn)', results, [
      ['Store', (r) => r.engine],
      ['First Subscribe request', (r) => r.resubscribe.toStreamOpenMs],
      ['Its replay preset', (r) => r.resubscribe.preset],
      ['Missed change remapped', (r) => r.resubscribe.toRemapMs],
    ]),
    tableOf('Replay from EARLIEST on a fresh store (RSS of the bridge process)', results, [
      ['Store', (r) => r.engine],
      ['Changes committed', (r) => r.replay.published],
      ['Committing them in the fake (ms)', (r) => r.replay.publishMs],
      ['Stored', (r) => r.replay.stored],
      ['Stream open → all stored (ms)', (r) => r.replay.storeMs],
      ['Stored per second', storeRate],
      ['RSS 3 s after start, Pub/Sub off · on (MB)', (r) => `${Math.round(r.startedOffMb)} · ${Math.round(r.startedOnMb)}`],
      ['Idle RSS after the latency phase (MB)', (r) => r.idleMb],
      ['RSS at ¼ · ½ · ¾ · all stored (MB)', (r) => r.replay.quartersMb.map((value) => Math.round(value)).join(' · ')],
      ['Peak RSS (VmHWM, MB)', (r) => r.replay.peakMb],
      ['Final RSS (MB)', (r) => r.replay.finalMb],
    ]),
  ];
}

export function methodNotes(sizes: PhaseSizes): string[] {
  return [
    `The bridge is \`node src/server.ts\` in a child process with SALESFORCE_PUBSUB=on streaming /data/EventChangeEvent and /data/OpportunityChangeEvent (batch 100) from the fake Pub/Sub (grpc-js over TLS on loopback, test certificate trusted through NODE_EXTRA_CA_CERTS), signed in at the fake org (OAuth client credentials, SOQL over REST), MOMENTUM_RATE_LIMIT=${RATE_LIMIT} (pacing on, never waited for), LOG_LEVEL=info to a drained pipe; SQLite in a fresh file, PostgreSQL in a fresh schema per phase, dropped afterwards. The fakes and the measuring share this process and its clock; the fake sends a keepalive after 5 s without events.`,
    `Latency: ${sizes.changes} Event CREATEs committed in the fake one at a time, each in turn with an Outbound Message of the same kind of Event (same fields, Opportunity and owner; bench/lib/outbound-messages.ts) POSTed to the same bridge, each 50 ms after the previous remap arrived, after ${sizes.warmup} warm-up pairs. Timed from the commit (from the POST's send for the Outbound Message) to the fake Momentum having the whole remap body. A CREATE carries every field, so no REST read is in the CDC path.`,
    'Crash recovery: right after the latency phase the bridge is SIGKILLed, still holding both channels\' leases (20 s, renewed every 5 s); one Event CREATE is committed; a new bridge is spawned on the same store. "Stream open" is its first Subscribe request reaching the fake: it comes once the dead holder\'s lease has expired, so it is bounded by the lease length, not by start-up.',
    `Replay: Event and Opportunity CREATEs in turn (${sizes.replay.toLocaleString('en-US')} asked) committed in the fake before the bridge starts, then a bridge on a fresh store with SALESFORCE_PUBSUB_START=EARLIEST. Progress is the stored replay id of each channel from GET /admin/pubsub every 500 ms; RSS from /proc (VmRSS, and VmHWM for the peak between reads); deadline ${sizes.replayDeadlineMs / 1000} s, after which what was stored is reported. The Event changes' remaps go on being sent in the background while the replay is stored, as in production.`,
  ];
}

export function warnings(r: EngineResult): string[] {
  const out: string[] = [];
  if (r.latency.missing > 0) out.push(`WARNING: ${r.engine}: ${r.latency.missing} changes never reached the fake Momentum within 30 s.`);
  if (!r.replay.finished)
    out.push(
      `${r.engine}: the replay did not finish within the deadline: ${r.replay.stored.toLocaleString('en-US')} of ${r.replay.published.toLocaleString('en-US')} stored.`,
    );
  if (r.resubscribe.preset !== 'CUSTOM')
    out.push(`WARNING: ${r.engine}: the new bridge subscribed with ${r.resubscribe.preset}, not CUSTOM after the stored id.`);
  return out;
}
