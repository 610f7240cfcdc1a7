import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { createMessageFactory, subjectOf } from '../../bench/lib/outbound-messages.ts';
import { PRODUCTION_NODE_FLAGS } from '../../bench/lib/production-node-flags.ts';
import { END_MARKER, replaceReadmeBlock, START_MARKER } from '../../bench/lib/readme-block.ts';
import { targetRow } from '../../bench/lib/report.ts';
import { distribution, median } from '../../bench/lib/stats.ts';
import { parseOutboundMessage } from '../../src/salesforce/soap-parser.ts';

describe('bench createMessageFactory', () => {
  it('when messages are generated, then the real parser accepts them and no notification id repeats', () => {
    const next = createMessageFactory(100);

    const first = next();
    const second = next();

    const parsed = [parseOutboundMessage(first.xml), parseOutboundMessage(second.xml)];
    const ids = parsed.flatMap((message) => message.notifications.map((notification) => notification.id));
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    expect(parsed[0]?.notifications[0]?.fields.Subject).toBe(subjectOf(first.recordIds[0] ?? ''));
    expect(new Set([...first.recordIds, ...second.recordIds]).size).toBe(200);
  });
});

describe('bench replaceReadmeBlock', () => {
  it('when the markers exist, then only the text between them changes', () => {
    const readme = `# Title\n\nintro\n\n${START_MARKER}\nold table\n${END_MARKER}\n\n## After\n`;

    const updated = replaceReadmeBlock(readme, 'new table');

    expect(updated).toBe(`# Title\n\nintro\n\n${START_MARKER}\nnew table\n${END_MARKER}\n\n## After\n`);
  });

  it('when an older copy of the block follows, then it is dropped and one table remains', () => {
    const readme = `# Title\n\n${START_MARKER}\nold\n${END_MARKER}\n\n## Later\n\ntext\n\n${START_MARKER}\nstale\n${END_MARKER}\n`;

    const updated = replaceReadmeBlock(readme, 'new');

    expect(updated).toBe(`# Title\n\n${START_MARKER}\nnew\n${END_MARKER}\n\n## Later\n\ntext\n`);
  });

  it('when the markers are missing, then a marked block is appended and the rest is untouched', () => {
    const updated = replaceReadmeBlock('# Title\n\nbody\n', 'table');

    expect(updated).toBe(`# Title\n\nbody\n\n${START_MARKER}\ntable\n${END_MARKER}\n`);
  });
});

describe('bench stats', () => {
  it('when given 1…100, then nearest-rank percentiles and the median are the textbook ones', () => {
    const values = Array.from({ length: 100 }, (_, index) => 100 - index);

    const result = distribution(values);

    expect(result).toMatchObject({ count: 100, p50: 50, p90: 90, p95: 95, p99: 99, max: 100, mean: 50.5 });
    expect(median(values)).toBe(50.5);
  });

  it('when there is no sample, then every figure is NaN rather than a made-up zero', () => {
    expect(distribution([]).p50).toBeNaN();
    expect(median([])).toBeNaN();
  });
});

describe('bench targetRow', () => {
  it('when a baseline is given, then the ratio and the verdict are computed from the numbers', () => {
    const row = targetRow({
      metric: 'msgs/s',
      measured: 300,
      unit: 'msg/s',
      baseline: { label: 'bare', value: 1000 },
      target: '≥ 0.4 × bare',
      pass: (_measured, ratio) => (ratio ?? 0) >= 0.4,
    });

    expect(row).toMatchObject({ ratio: 0.3, pass: false });
  });

  it('when the measured value is not a number, then the row fails instead of passing silently', () => {
    const row = targetRow({ metric: 'p50', measured: Number.NaN, unit: 'ms', target: '< 10 ms', pass: () => true });

    expect(row.pass).toBe(false);
  });
});

describe('bench npm scripts', () => {
  it('when a benchmark is started with npm run, then node runs with the heap flags the deployment uses', () => {
    const scripts: Record<string, string> = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts;

    const benchScripts = Object.entries(scripts).filter(([name]) => name === 'bench' || name.startsWith('bench:'));

    expect(benchScripts.length).toBeGreaterThanOrEqual(4);
    for (const [name, command] of benchScripts) expect(command, name).toMatch(new RegExp(`^node ${PRODUCTION_NODE_FLAGS.join(' ')} bench/`));
  });
});
