/**
 * Reads Prometheus text exposition the way a scraper does: one sample per line,
 * `name{label="value",…} number`. Enough for asserting on the bridge's own /metrics.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = LINE.exec(line.trim());
    if (line.startsWith('#') || match === null) return [];
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map((label) => [label[1], label[2]]));
    return [{ name: match[1] as string, labels, value: Number(match[3]) }];
  });
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = parseSamples(text).filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}; name more labels`);
  return found[0]?.value;
}

/** The metric families the text declares (`# TYPE name type`). */
export function families(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1] as string, match[2] as string]));
}
