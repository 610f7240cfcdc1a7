import { type DeepQueueResult, runDeepQueue, SHALLOW_DEPTH } from './lib/deep-queue.ts';
import { PRODUCTION_NODE_FLAGS } from './lib/production-node-flags.ts';
import { type BenchResult, measure, reportResult, tableOf, type TargetRow, targetRow } from './lib/report.ts';

/**
 * bench:backlog: memory and claim latency with 1 000 000 pending remap jobs (SQLite), each beside
 * the same measurement at depth 1 000 in the same run (lib/deep-queue.ts runs the phases).
 */

const DEEP_JOBS = Number(process.env.BENCH_DEEP_JOBS ?? 1_000_000);
const CLAIM_NOTE =
  '300 claims of 4 jobs as the worker makes them (paced on the default budget of 100/15m, each job taking a call slot), every claimed job put back with its slot given back so depth and budget stay put; then the worker, paced the same way, claims and finishes jobs with a handler that succeeds at once without a call';

function targets(deep: DeepQueueResult): TargetRow[] {
  const depth = deep.fillDeep.depth.toLocaleString('en-US');
  const shallow = SHALLOW_DEPTH.toLocaleString('en-US');
  return [
    targetRow({
      metric: `peak RSS while enqueueing ${depth} jobs`,
      measured: deep.fillDeep.peakRssMb,
      unit: 'MB',
      baseline: { label: `enqueueing ${shallow}`, value: deep.fillShallow.peakRssMb },
      target: '< 200 MB',
      pass: (m) => m < 200,
    }),
    targetRow({
      metric: `peak RSS while claiming at depth ${depth}`,
      measured: deep.claimDeep.peakRssMb,
      unit: 'MB',
      baseline: { label: `at depth ${shallow}`, value: deep.claimShallow.peakRssMb },
      target: '< 200 MB, flat (≤ 1.25 × shallow)',
      pass: (m, ratio) => m < 200 && (ratio ?? Infinity) <= 1.25,
    }),
    targetRow({
      metric: `claim latency p50 at depth ${depth}`,
      measured: deep.claimDeep.latency.p50,
      unit: 'ms',
      baseline: { label: `at depth ${shallow}`, value: deep.claimShallow.latency.p50 },
      target: `within 2× of depth ${shallow}`,
      pass: (_m, ratio) => (ratio ?? Infinity) <= 2,
    }),
  ];
}

export const runBacklogBench = (): Promise<BenchResult> =>
  measure('backlog', 'Backlog: 1,000,000 pending remap jobs (npm run bench:backlog)', async () => {
    console.log(`backlog: ${DEEP_JOBS.toLocaleString('en-US')} jobs…`);
    const deep = await runDeepQueue(DEEP_JOBS);
    return {
      settings: { deepJobs: DEEP_JOBS, batch: deep.batch },
      targets: targets(deep),
      tables: [
        tableOf(
          `Claim latency and memory (SQLite) at depth ${SHALLOW_DEPTH.toLocaleString('en-US')} vs full depth`,
          [
            { claimed: deep.claimShallow, filled: deep.fillShallow },
            { claimed: deep.claimDeep, filled: deep.fillDeep },
          ],
          [
            ['Depth', ({ claimed }) => claimed.depth],
            ['Claim p50 ms', ({ claimed }) => claimed.latency.p50],
            ['Claim p90 ms', ({ claimed }) => claimed.latency.p90],
            ['Claim p99 ms', ({ claimed }) => claimed.latency.p99],
            ['Worker claim+finish jobs/s', ({ claimed }) => claimed.workerJobsPerSecond],
            ['Peak RSS claiming MB', ({ claimed }) => claimed.peakRssMb],
            ['Peak RSS filling MB', ({ filled }) => filled.peakRssMb],
            ['Live heap after GC MB', ({ filled }) => filled.liveHeapAfterGcMb],
            ['Fill jobs/s', ({ filled }) => filled.perSecond],
            ['DB file MB', ({ filled }) => filled.databaseMb],
          ],
        ),
        {
          title: 'RSS while filling, by queue depth',
          columns: ['Depth', 'RSS MB', 'of which V8 heap MB'],
          rows: deep.fillDeep.rssByDepth.map((point) => [point.depth, point.rssMb, point.heapMb]),
        },
      ],
      notes: [
        `Jobs are remaps as the bridge makes them (coalesced per meeting, rate key momentum, live priority), one distinct meeting each, in a SQLite file, enqueued in batches of ${deep.batch.toLocaleString('en-US')} (one transaction each).`,
        `Every process runs node with the deployment's heap flags (${PRODUCTION_NODE_FLAGS.join(' ')}, as deploy/Dockerfile starts the bridge for its 512Mi limit); with V8's defaults on a large host the heap limit is 4 GB and the young generation alone grows past 100 MB during a fast enqueue.`,
        `Each phase (fill, claim) runs in its own process, so each peak RSS is the kernel's high-water mark for that phase; "claiming" is a fresh process on the filled file (a bridge restarted with a backlog): ${CLAIM_NOTE}.`,
      ],
    };
  });

if (import.meta.main) reportResult(await runBacklogBench());
