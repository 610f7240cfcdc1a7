import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { type BenchResult, measure, renderMarkdown, reportResult, resultsDir } from './lib/report.ts';
import { SAMPLES } from './year/admin-reads.ts';
import { type EngineMeasurement, measureEngine } from './year/measure-engine.ts';
import { methodNotes } from './year/method-notes.ts';
import { SEARCHERS } from './year/operator-load.ts';
import { yearMeasurement } from './year/report.ts';
import { dropAll, type Engine, withPg } from './year/store-cache.ts';

/**
 * bench:year: the bridge holding a year of data. Each engine's store is filled to N events
 * (BENCH_YEAR_EVENTS, default 1 000 000) with rows copied from what the real bridge wrote for a
 * handful of messages (bench/year/template-run.ts), made different per event and spread over 365
 * days, and kept for the next run (bench/year/store-cache.ts). Then the real bridge runs on it and
 * the operator's reads, the console opening and the acknowledgement of inbound traffic (idle and
 * under operator load) are timed. `--clean` removes every cached year store.
 * BENCH_YEAR_ENGINES=sqlite or postgres measures one engine only.
 */

const EVENTS = Number(process.env.BENCH_YEAR_EVENTS ?? 1_000_000);
const ENGINES = (process.env.BENCH_YEAR_ENGINES ?? 'sqlite,postgres').split(',').map((name) => name.trim().toLowerCase());

export const runYearBench = (): Promise<BenchResult> =>
  measure('year', `A year of data: ${EVENTS.toLocaleString('en-US')} events (npm run bench:year)`, async () => {
    const notes: string[] = [];
    const measured: EngineMeasurement[] = [];
    const engines: Engine[] = [...(ENGINES.includes('sqlite') ? ['SQLite' as const] : []), ...(ENGINES.includes('postgres') ? ['PostgreSQL' as const] : [])];
    for (const engine of engines) {
      if (engine === 'PostgreSQL') {
        const reachable = await withPg((client) => client.query('SELECT 1')).then(
          () => true,
          (error: unknown) => (notes.push(`PostgreSQL skipped: it did not answer (${error instanceof Error ? error.message : String(error)}).`), false),
        );
        if (!reachable) continue;
      }
      measured.push(await measureEngine(engine, EVENTS));
    }
    notes.push(...methodNotes());
    return { settings: { events: EVENTS, engines: engines.join(', '), readSamples: SAMPLES, searchers: SEARCHERS }, ...yearMeasurement(measured, notes) };
  });

if (import.meta.main) {
  if (process.argv.includes('--clean')) {
    const dropped = await dropAll();
    console.log(dropped.length === 0 ? 'no cached year stores' : `removed ${dropped.join(', ')}`);
  } else {
    const result = await runYearBench();
    reportResult(result);
    writeFileSync(path.join(resultsDir, 'year-latest.md'), `# A year of data\n\n${renderMarkdown([result], result.startedAt)}`);
    console.log('wrote bench/results/year-latest.md');
  }
}
