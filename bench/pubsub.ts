import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { onPostgres } from './lib/pg-schema.ts';
import { type BenchResult, measure, renderMarkdown, reportResult, resultsDir } from './lib/report.ts';
import { type EngineResult, measureEngine, type PhaseSizes, sqliteStores, type StoreFor } from './pubsub/measure-engine.ts';
import { methodNotes, pubsubTables, pubsubTargets, warnings } from './pubsub/report.ts';

/**
 * bench:pubsub: the Salesforce Pub/Sub (Change Data Capture) subscriber of a real bridge process
 * (`node src/server.ts`, SALESFORCE_PUBSUB=on) against the fake Pub/Sub, org and Momentum in this
 * process, on SQLite and PostgreSQL: a change's latency to Momentum beside an Outbound Message's,
 * the time back to streaming after a SIGKILL, and memory and store rate under a large replay.
 * Results in bench/results/pubsub-latest.md (findings in docs/performance.md).
 */

const sizes: PhaseSizes = {
  changes: Number(process.env.BENCH_PUBSUB_CHANGES ?? 100),
  warmup: 10,
  replay: Number(process.env.BENCH_PUBSUB_REPLAY ?? 100_000),
  replayDeadlineMs: Number(process.env.BENCH_PUBSUB_REPLAY_SECONDS ?? 180) * 1000,
};

/** A fresh schema per phase, dropped afterwards; throws (after onPostgres's note) when PostgreSQL does not answer. */
const postgresStores =
  (notes: string[]): StoreFor =>
  async (phase, run) => {
    const ran = await onPostgres(`pubsub_${phase}`, notes, async (url) => {
      await run(url);
      return true;
    });
    if (ran !== true) throw new Error('PostgreSQL did not answer');
  };

export const runPubSubBench = (): Promise<BenchResult> =>
  measure('pubsub', 'Salesforce Pub/Sub: CDC latency, crash recovery, replay memory (npm run bench:pubsub)', async () => {
    const notes: string[] = [];
    const results: EngineResult[] = [await measureEngine('SQLite', sqliteStores(), sizes)];
    if (process.env.BENCH_PUBSUB_POSTGRES !== 'off') {
      try {
        results.push(await measureEngine('PostgreSQL', postgresStores(notes), sizes));
      } catch (error) {
        notes.push(`PostgreSQL not measured: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    for (const r of results)
      console.log(
        `pubsub ${r.engine}: CDC p50 ${Math.round(r.latency.cdc.p50)} ms vs OM ${Math.round(r.latency.outbound.p50)} ms; resubscribe ${Math.round(r.resubscribe.toStreamOpenMs)} ms; replay ${r.replay.stored}/${r.replay.published} peak ${Math.round(r.replay.peakMb)} MB`,
      );
    return {
      settings: {
        changes: sizes.changes,
        replay: sizes.replay,
        replayDeadlineSeconds: sizes.replayDeadlineMs / 1000,
        engines: results.map((r) => r.engine).join('+'),
      },
      targets: results.flatMap(pubsubTargets),
      tables: pubsubTables(results),
      notes: [...notes, ...methodNotes(sizes), ...results.flatMap(warnings)],
    };
  });

if (import.meta.main) {
  const result = await runPubSubBench();
  reportResult(result);
  writeFileSync(path.join(resultsDir, 'pubsub-latest.md'), renderMarkdown([result], result.startedAt));
}
