import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { replaceReadmeBlock } from './lib/readme-block.ts';
import { type BenchResult, machine, machineLine, renderMarkdown, resultsDir, targetsTable } from './lib/report.ts';

/**
 * `npm run bench`: the ingest, backlog, quota-burst, idle-latency, matching-accuracy, year-of-data and Salesforce Pub/Sub benchmarks
 * one after the other, each in a fresh process (no JIT or heap carried from one to the next), then
 * bench/results/latest.md (kept in the repository, as are bench:matching's matching-latest.md, bench:year's year-latest.md and bench:pubsub's pubsub-latest.md), bench/results/latest.json
 * (not committed) and the block of docs/performance.md between `<!-- bench:start -->` and `<!-- bench:end -->`.
 * Each benchmark hands its result over as bench/results/<name>.json (not committed either).
 */

const BENCHES = ['ingest', 'backlog', 'quota', 'latency', 'matching', 'year', 'pubsub'] as const;
// The summary table lives in docs/performance.md, between its bench markers.
const readmePath = path.resolve(import.meta.dirname, '../docs/performance.md');

async function runBench(name: string): Promise<number> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, `${name}.ts`)], { stdio: 'inherit' });
  const [code] = (await once(child, 'exit')) as [number | null];
  return code ?? 1;
}

const started = new Date();
const failed: string[] = [];
const results: BenchResult[] = [];
for (const name of BENCHES) {
  console.log(`\n=== bench:${name} ===`);
  const code = await runBench(name);
  if (code !== 0) {
    failed.push(name);
    continue;
  }
  results.push(JSON.parse(readFileSync(path.join(resultsDir, `${name}.json`), 'utf8')) as BenchResult);
}

const date = started.toISOString();
const latest = { generatedAt: date, machine: machine(), failedToRun: failed, results };
writeFileSync(path.join(resultsDir, 'latest.json'), `${JSON.stringify(latest, null, 2)}\n`);
const markdown = renderMarkdown(results, date);
writeFileSync(path.join(resultsDir, 'latest.md'), markdown);

const first = results[0];
const block = [
  `Output of \`npm run bench\` (${date.slice(0, 10)}); details, per-run tables and method notes in [bench/results/latest.md](../bench/results/latest.md); findings below.`,
  '',
  first ? machineLine(first.machine, date) : '',
  '',
  targetsTable(results),
  ...(failed.length > 0 ? ['', `Did not run to completion: ${failed.join(', ')}.`] : []),
].join('\n');
writeFileSync(readmePath, replaceReadmeBlock(readFileSync(readmePath, 'utf8'), block));

console.log(`\n${markdown}`);
console.log(`wrote bench/results/latest.md, bench/results/latest.json and the benchmark block of docs/performance.md`);
if (failed.length > 0) {
  console.error(`benchmarks that failed to run: ${failed.join(', ')}`);
  process.exitCode = 1;
}
