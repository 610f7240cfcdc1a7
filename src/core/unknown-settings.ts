/**
 * Environment variables that look like the bridge's settings but are none of them: a misspelt
 * name (MAPPING_RULES for MAPPING_FILE) would otherwise be ignored without a word. A variable is
 * the bridge's when its first word (up to the first `_`) begins a known setting's name; Node's
 * own NODE_* variables (NODE_OPTIONS, NODE_EXTRA_CA_CERTS…) are not. Each is reported with the
 * known setting nearest to it by edit distance. Only names are read, never values.
 */

const FOREIGN_PREFIXES = new Set(['NODE_']);

export interface UnknownSetting {
  name: string;
  /** The known setting with the fewest single-character edits from `name` (the first such, in schema order). */
  nearest: string;
}

/** The `FOO_` of `FOO_BAR`; undefined for a name without an underscore (PORT, HOST). */
const prefixOf = (name: string) => /^[A-Z][A-Z0-9]*_/.exec(name)?.[0];

export function bridgePrefixes(known: readonly string[]): Set<string> {
  return new Set(known.map(prefixOf).filter((prefix): prefix is string => prefix !== undefined && !FOREIGN_PREFIXES.has(prefix)));
}

export function unknownSettings(env: Record<string, string | undefined>, known: readonly string[]): UnknownSetting[] {
  const prefixes = bridgePrefixes(known);
  const knownSet = new Set(known);
  return Object.keys(env)
    .filter((name) => !knownSet.has(name) && prefixes.has(prefixOf(name) ?? ''))
    .sort()
    .map((name) => ({ name, nearest: nearestName(name, known) }));
}

function nearestName(name: string, known: readonly string[]): string {
  let best = known[0] ?? '';
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions, one row at a time. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] as number;
}
