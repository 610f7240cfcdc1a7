import type { JobContext } from '../jobs/types.ts';
import { GraphApiError } from './graph-api-error.ts';
import type { GraphClient } from './graph-client.ts';

/**
 * The bounds of one sync (docs/protocols.md §7). Graph hands out `@odata.nextLink` until a round
 * ends with its `@odata.deltaLink`; a chain that never ends would hold a worker slot and call
 * Graph for ever. At 50 events a page, 1 000 pages is 50 000 changed events in one round, far
 * more than a mailbox's calendar window holds; ten minutes is far longer than such a round takes.
 */
export const MAX_DELTA_PAGES = 1_000;
export const MAX_SYNC_MS = 10 * 60_000;

export interface DeltaWalkLimits {
  maxPages: number;
  maxMs: number;
}

export type DeltaStart = Parameters<GraphClient['delta']>[1];

/**
 * Reads one delta round from `from` through every nextLink, handing each page's items to
 * `onPage`, and resolves the round's deltaLink (undefined if the last page carried none). Past a
 * bound it stops, before asking for the next page: too many pages is `final` (the same chain
 * would be read again), too long is `retryable` (Graph may be slow for a while). `tally.pages` counts
 * across calls, so a full sync after a dropped link shares the bounds of the sync it replaces.
 */
export async function walkDelta(
  client: Pick<GraphClient, 'delta'>,
  userId: string,
  from: DeltaStart,
  context: Pick<JobContext, 'now' | 'signal'>,
  bounds: DeltaWalkLimits & { startedAt: number },
  tally: { pages: number },
  /** Each page's items, with the request that read them (a removal names no time of its own, so its key names the read). */
  onPage: (items: unknown[], readFrom: DeltaStart) => Promise<void>,
): Promise<string | undefined> {
  let next = from;
  for (;;) {
    if (tally.pages >= bounds.maxPages) {
      throw new GraphApiError('final', `calendarView delta: no deltaLink after ${bounds.maxPages} pages, the bound of one sync; sync stopped`);
    }
    const spent = context.now() - bounds.startedAt;
    if (spent >= bounds.maxMs) {
      throw new GraphApiError(
        'retryable',
        `calendarView delta: no deltaLink after ${Math.round(spent / 1000)} s and ${tally.pages} pages, past the bound of one sync (${Math.round(bounds.maxMs / 1000)} s); sync stopped`,
      );
    }
    const page = await client.delta(userId, next, context.signal);
    tally.pages += 1;
    await onPage(page.value, next);
    const link = page['@odata.nextLink'];
    if (link === undefined) return page['@odata.deltaLink']; // only the last page carries it
    next = { link };
  }
}
