import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';

import { round } from './stats.ts';

/** One row of the summary table (docs/performance.md): a measured value next to its baseline and its target. */
export interface TargetRow {
  metric: string;
  measured: number;
  unit: string;
  /** What the value is compared with, measured in the same run. */
  baseline?: { label: string; value: number };
  /** measured ÷ baseline.value (or the ratio the target is about). */
  ratio?: number;
  /** Human-readable target, e.g. `≥ 0.4 × bare express`. */
  target: string;
  /** null: informational, no target. */
  pass: boolean | null;
}

export interface Table {
  title: string;
  columns: string[];
  rows: Array<Array<string | number>>;
}

/** A table whose every column is named next to the value it shows, one row per item. */
export function tableOf<T>(title: string, items: readonly T[], columns: ReadonlyArray<readonly [string, (item: T) => string | number]>): Table {
  return { title, columns: columns.map(([name]) => name), rows: items.map((item) => columns.map(([, value]) => value(item))) };
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run began: other work on a shared machine skews numbers. */
  loadAverage: number;
}

export interface BenchResult {
  name: string;
  title: string;
  startedAt: string;
  durationMs: number;
  machine: Machine;
  settings: Record<string, string | number | boolean>;
  targets: TargetRow[];
  tables: Table[];
  notes: string[];
}

export const resultsDir = path.resolve(import.meta.dirname, '../results');

export function machine(): Machine {
  const cpuList = cpus();
  return {
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverage: round(loadavg()[0] ?? 0),
  };
}

/** What a benchmark measures; `measure` adds when and where it ran. */
export type Measurement = Pick<BenchResult, 'settings' | 'targets' | 'tables' | 'notes'>;

/** Runs `run` and dates it: the start, the duration and the machine go with the figures. */
export async function measure(name: string, title: string, run: () => Promise<Measurement>): Promise<BenchResult> {
  const startedAt = new Date();
  const machineInfo = machine();
  const measured = await run();
  return { name, title, startedAt: startedAt.toISOString(), durationMs: Date.now() - startedAt.getTime(), machine: machineInfo, ...measured };
}

/** A benchmark run on its own (`npm run bench:<name>`): its result as bench/results/<name>.json for run-all.ts, and as Markdown on stdout. */
export function reportResult(result: BenchResult): void {
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${result.name}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote ${file}\n`);
  console.log(renderMarkdown([result], result.startedAt));
}

/** A target row with its ratio and pass/fail worked out from the numbers, never typed in. */
export function targetRow(
  row: Omit<TargetRow, 'ratio' | 'pass'> & { ratio?: number; pass: (measured: number, ratio: number | undefined) => boolean | null },
): TargetRow {
  const ratio = row.ratio ?? (row.baseline && row.baseline.value !== 0 ? row.measured / row.baseline.value : undefined);
  const measuredOk = Number.isFinite(row.measured);
  return {
    metric: row.metric,
    measured: round(row.measured),
    unit: row.unit,
    ...(row.baseline ? { baseline: { label: row.baseline.label, value: round(row.baseline.value) } } : {}),
    ...(ratio === undefined ? {} : { ratio: round(ratio) }),
    target: row.target,
    pass: measuredOk ? row.pass(row.measured, ratio) : false,
  };
}

const cell = (value: string | number) => (typeof value === 'number' ? formatNumber(value) : value.replace(/\|/g, '\\|'));

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Math.abs(value) >= 1000 ? Math.round(value).toLocaleString('en-US') : String(round(value));
}

function markdownTable(columns: string[], rows: Array<Array<string | number>>): string {
  const head = `| ${columns.join(' | ')} |`;
  const rule = `|${columns.map(() => '---').join('|')}|`;
  return [head, rule, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
}

const verdict = (pass: boolean | null) => (pass === null ? '—' : pass ? '✅ pass' : '❌ fail');

export function targetsTable(results: readonly BenchResult[]): string {
  const rows = results.flatMap((result) =>
    result.targets.map((row) => [
      result.name,
      row.metric,
      `${formatNumber(row.measured)} ${row.unit}`.trimEnd(),
      row.baseline ? `${formatNumber(row.baseline.value)} ${row.unit} (${row.baseline.label})` : '—',
      row.ratio === undefined ? '—' : `${formatNumber(row.ratio)}×`,
      row.target,
      verdict(row.pass),
    ]),
  );
  return markdownTable(['Benchmark', 'Metric', 'Measured', 'Baseline (same run)', 'Ratio', 'Target', 'Result'], rows);
}

export function machineLine(m: Machine, date: string): string {
  return `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.platform} · Node ${m.node} · ${date} · load average at start ${m.loadAverage}`;
}

/** The whole report: machine line, the target table, then each benchmark's detail tables and notes. */
export function renderMarkdown(results: readonly BenchResult[], date: string): string {
  const first = results[0];
  const parts = [first ? machineLine(first.machine, date) : 'No results.', '', targetsTable(results)];
  for (const result of results) {
    parts.push('', `#### ${result.title}`, '');
    for (const table of result.tables) parts.push(`*${table.title}*`, '', markdownTable(table.columns, table.rows), '');
    for (const note of result.notes) parts.push(`- ${note}`);
  }
  return `${parts.join('\n').trim()}\n`;
}
