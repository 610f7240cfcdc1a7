import { fillYear } from './fill.ts';
import { postgresWriter } from './fill-postgres.ts';
import { sqliteWriter } from './fill-sqlite.ts';
import { codeSchemaVersion, dropStore, type Engine, FILL_FORMAT, type FillMeta, reusable, sqliteFile, writeMeta } from './store-cache.ts';
import { runTemplates } from './template-run.ts';
import { compileTemplates, type Templates } from './templates.ts';

/**
 * A store of `events` events on `engine`, filled now or reused from an earlier run (store-cache.ts
 * says when). The templates are made once per process, only when a fill needs them.
 */

let templates: Promise<Templates> | undefined;
const templatesOnce = (): Promise<Templates> => (templates ??= runTemplates().then(compileTemplates));

export async function ensureFilled(engine: Engine, events: number): Promise<{ meta: FillMeta; reused: boolean }> {
  const check = await reusable(engine, events);
  if ('meta' in check) {
    console.log(`year ${engine}: reusing the store of ${events.toLocaleString('en-US')} events filled ${check.meta.filledAt}`);
    return { meta: check.meta, reused: true };
  }
  console.log(`year ${engine}: filling ${events.toLocaleString('en-US')} events (${check.reason})`);
  await dropStore(engine, events);
  const compiled = await templatesOnce();
  const writer = engine === 'SQLite' ? await sqliteWriter(sqliteFile(events), compiled.columns) : await postgresWriter(events, compiled.columns);
  const outcome = await fillYear(engine, events, compiled, writer);
  const meta: FillMeta = {
    engine,
    events,
    fillFormat: FILL_FORMAT,
    schemaVersion: codeSchemaVersion(),
    yearEnd: outcome.yearEnd,
    fillMs: outcome.fillMs,
    rows: outcome.rows,
    bytes: outcome.bytes,
    filledAt: new Date().toISOString(),
  };
  writeMeta(meta);
  console.log(`year ${engine}: filled in ${Math.round(outcome.fillMs / 1000)} s, ${Math.round(outcome.bytes / 2 ** 20)} MB`);
  return { meta, reused: false };
}
