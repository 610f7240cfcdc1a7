import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

/**
 * The layout's rules, checked on every run: dependencies between folders point one way
 * (integrations → calendar, mapping, jobs, store → core), so no two folders import each other,
 * directly or around a loop; and only the app's composition (src/app.ts) mounts the routers.
 */

const root = path.resolve(import.meta.dirname, '../..');
const IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

/** A file's folder as the layout counts it: routes/, src/<folder>/, or src/ itself (the composition). */
function folderOf(file: string): string {
  const parts = file.split(path.sep);
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : 'src';
  return parts[0] as string;
}

function imports(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => path.normalize(path.join(path.dirname(file), match[1] as string)));
}

const files = [...sources('src'), ...sources('routes')];
const edges = new Map<string, Set<string>>();
for (const file of files) {
  for (const target of imports(file)) {
    const from = folderOf(file);
    const to = folderOf(target);
    if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
  }
}

/** Every loop between folders, each as the path that closes it. */
function cycles(): string[][] {
  const found: string[][] = [];
  const visit = (node: string, trail: string[]) => {
    for (const next of edges.get(node) ?? []) {
      const at = trail.indexOf(next);
      if (at >= 0) found.push([...trail.slice(at), next]);
      else visit(next, [...trail, next]);
    }
  };
  for (const start of edges.keys()) visit(start, [start]);
  return found;
}

describe('the folder layout', () => {
  it('when folders import each other, then only one way: no loop between folders', () => {
    expect(cycles().map((loop) => loop.join(' → '))).toEqual([]);
  });

  it('when a file imports a router, then it is the app composition (src/app.ts)', () => {
    const importers = files.filter((file) => !file.startsWith('routes') && imports(file).some((target) => target.startsWith(`routes${path.sep}`)));

    expect(importers).toEqual([path.join('src', 'app.ts')]);
  });

  it('when the core (config, errors, logging) imports, then only itself', () => {
    expect([...(edges.get('src/core') ?? [])]).toEqual([]);
  });

  it('when the store imports, then only the core', () => {
    expect([...(edges.get('src/store') ?? [])]).toEqual(['src/core']);
  });
});
