import { addEventRows, type Chunk, emptyChunk, type FillFrame } from './rows.ts';
import type { FilledTable, Templates } from './templates.ts';

/**
 * The fill's loop, the same for both engines: N events in chunks, each chunk one transaction of
 * plain INSERTs (so the store's triggers see every row), the next chunk built while the engine
 * writes the previous one. Chunks hold an even number of events, so a superseded delivery and the
 * one superseding it always share a transaction.
 */

export interface FillWriter {
  /** The largest id of each kind already stored (0 in a fresh store). */
  base(): Promise<FillFrame['base']>;
  /** One transaction holding every row of a chunk, parents first, then the superseded deliveries' successors. */
  write(chunk: Chunk): Promise<void>;
  /** Settles the store after the fill (checkpoint, statistics) and answers its size in bytes. */
  finish(): Promise<number>;
}

export interface FillOutcome {
  fillMs: number;
  yearEnd: number;
  rows: Record<FilledTable, number>;
  bytes: number;
}

const CHUNK_EVENTS = 2_000;
const PROGRESS_EVERY_MS = 15_000;

export async function fillYear(label: string, events: number, templates: Templates, writer: FillWriter): Promise<FillOutcome> {
  const yearEnd = Date.now();
  const frame: FillFrame = { total: events, end: yearEnd, base: await writer.base() };
  const rows = Object.fromEntries(Object.keys(templates.columns).map((table) => [table, 0])) as Record<FilledTable, number>;
  const started = performance.now();
  let reported = started;
  let inFlight: Promise<void> = Promise.resolve();
  for (let from = 0; from < events; from += CHUNK_EVENTS) {
    const chunk = emptyChunk(templates);
    for (let n = from; n < Math.min(events, from + CHUNK_EVENTS); n++) addEventRows(chunk, templates, n, frame);
    for (const [table, list] of Object.entries(chunk.rows)) rows[table as FilledTable] += list.length;
    await inFlight;
    inFlight = writer.write(chunk);
    const now = performance.now();
    if (now - reported >= PROGRESS_EVERY_MS) {
      reported = now;
      const done = Math.min(events, from + CHUNK_EVENTS);
      const rate = (done * 1000) / (now - started);
      console.log(
        `year fill ${label}: ${done.toLocaleString('en-US')} / ${events.toLocaleString('en-US')} events, ${Math.round(rate)} events/s, about ${Math.round((events - done) / rate)} s left`,
      );
    }
  }
  await inFlight;
  const bytes = await writer.finish();
  return { fillMs: performance.now() - started, yearEnd, rows, bytes };
}
