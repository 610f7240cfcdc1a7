import { createHash } from 'node:crypto';

import { calendarRecordKey } from '../calendar/calendar-event.ts';
import { syncFailure } from '../calendar/sync-failure.ts';
import { storableText } from '../core/storable.ts';
import type { HandlerResult, JobContext, JobHandler } from '../jobs/types.ts';
import { mapEventJobsFor } from '../mapping/map-event-job.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';
import type { InboundEvent, Inbox, NewJob } from '../store/types.ts';
import { type DeltaStart, MAX_DELTA_PAGES, MAX_SYNC_MS, walkDelta } from './delta-walk.ts';
import { GraphApiError } from './graph-api-error.ts';
import type { GraphClient } from './graph-client.ts';
import { mailboxSyncKind } from './jobs.ts';
import { normaliseGraphEvent } from './normalise-graph-event.ts';

const DAY_MS = 86_400_000;
/**
 * Graph keeps the full sync's date range inside the delta link (docs/protocols.md §7), so a link
 * only ever sees events in the range it was made for. A link whose range began more than this
 * long ago is replaced by a full sync, so the range moves with time: meetings booked further ahead
 * come into view within a day. What the full sync reads again is de-duplicated, never re-sent.
 */
export const WINDOW_ROLL_MS = DAY_MS;
// A link dropped again straight after a full sync is Graph's problem, not a loop of ours.
const MAX_FULL_SYNC_RESTARTS = 1;

export interface MailboxSyncDeps {
  subscriptions: SubscriptionStore;
  client: Pick<GraphClient, 'delta' | 'followsLink'>;
  store: Pick<Inbox, 'ingest'>;
  internalDomains: readonly string[];
  fullSyncDaysBack: number;
  fullSyncDaysAhead: number;
  jobsFor?: (event: InboundEvent) => NewJob[];
  /** Counts each sync by how it ended (`succeeded`, `failed`, `full_resync`). */
  onSync?: (outcome: string) => void;
}

interface SyncTally {
  mode: 'incremental' | 'full';
  pages: number;
  changed: number;
  stored: number;
  duplicates: number;
  skipped: Record<string, number>;
  linkDropped: boolean;
  windowRolled: boolean;
}

/**
 * Why a stored link gives way to a full sync: Graph no longer knows its state, it names another
 * host, or Graph answers it 400 (a token it cannot read): kept, such a link would fail every sync
 * until the window rolls a day later. The full sync runs once; if it fails too, that is the error.
 */
const dropsLink = (error: unknown): error is GraphApiError =>
  error instanceof GraphApiError && (error.kind === 'sync_state_gone' || error.kind === 'link_refused' || (error.kind === 'final' && error.status === 400));

/**
 * `microsoft-sync` jobs (docs/protocols.md §7): calendarView/delta from the stored delta link (or
 * the full-sync window) through every `@odata.nextLink` to the `@odata.deltaLink`, within the
 * bounds of one sync (delta-walk.ts); each changed event stored once (dedupe
 * `microsoft:<id>:<lastModifiedDateTime>`) with its mapping job. The new delta link is stored only
 * after the last page, so a failure part-way repeats the whole range (the dedupe absorbs what was
 * already stored). A stored link Graph answers 410 Gone, or one naming a host other than Graph's,
 * is dropped and a full sync runs. Every failure that ends a run is the mailbox's last error.
 */
export function createMailboxSyncHandler(deps: MailboxSyncDeps): JobHandler {
  const jobsFor = deps.jobsFor ?? mapEventJobsFor(calendarRecordKey);

  async function storePage(userId: string, items: unknown[], tally: SyncTally, readFrom: DeltaStart): Promise<void> {
    const events = [];
    for (const item of items) {
      const result = normaliseGraphEvent(item, userId, deps.internalDomains);
      if (result.kind === 'skipped') tally.skipped[result.reason] = (tally.skipped[result.reason] ?? 0) + 1;
      else events.push({ dedupeKey: dedupeKeyOf(result.event, readFrom), parsedPayload: result.event });
    }
    tally.changed += items.length;
    if (events.length === 0) return;
    const stored = await deps.store.ingest({ source: 'microsoft', senderId: userId, rawPayload: JSON.stringify({ userId, value: items }), events }, jobsFor);
    tally.stored += stored.created.length;
    tally.duplicates += stored.duplicates.length;
  }

  /** One delta round from `from`, every page stored, within the bounds of the sync begun at `startedAt`; resolves its deltaLink. */
  const walk = (userId: string, from: DeltaStart, context: JobContext, tally: SyncTally, startedAt: number) =>
    walkDelta(deps.client, userId, from, context, { maxPages: MAX_DELTA_PAGES, maxMs: MAX_SYNC_MS, startedAt }, tally, (items, readFrom) =>
      storePage(userId, items, tally, readFrom),
    );

  /**
   * Before a window roll: what changed since the last sync, read from the old link and stored, its
   * deltaLink discarded. The full sync that follows lists only events that still exist, so a
   * meeting deleted (or moved out of the window) since the last sync would otherwise never reach
   * the bridge as removed. A link Graph no longer takes is skipped: the full sync runs all the same.
   */
  async function readChangesSince(userId: string, link: string | null, context: JobContext, tally: SyncTally, startedAt: number): Promise<void> {
    if (link === null) return;
    try {
      await walk(userId, { link }, context, tally, startedAt);
    } catch (error) {
      if (!dropsLink(error)) throw error;
      context.logger.warn('the old delta link was refused before the window roll: its changes are not read', { userId, error: error.message });
    }
  }

  /** One sync, from the stored link or a full one; a link Graph will not take gives way to a full sync once. */
  async function sync(userId: string, storedLink: string | null, context: JobContext, tally: SyncTally, startedAt: number): Promise<void> {
    let link = storedLink;
    for (let restarts = 0; ; restarts += 1) {
      const windowStartedAt = context.now();
      tally.mode = link !== null ? 'incremental' : 'full';
      const from: DeltaStart =
        link !== null
          ? { link }
          : {
              window: {
                start: new Date(windowStartedAt - deps.fullSyncDaysBack * DAY_MS).toISOString(),
                end: new Date(windowStartedAt + deps.fullSyncDaysAhead * DAY_MS).toISOString(),
              },
            };
      try {
        const next = await walk(userId, from, context, tally, startedAt);
        // Graph ends every round with a deltaLink (docs/protocols.md §7): without one the next sync
        // would have nothing to start from, so the round fails, visibly, and is read again.
        if (next === undefined)
          throw new GraphApiError(
            'retryable',
            'calendarView delta: the last page carried no @odata.deltaLink; nothing stored, the next try reads the range again',
          );
        // Stored, it would be refused at the next sync: the round fails here instead, naming the host.
        if (!deps.client.followsLink(next))
          throw new GraphApiError('link_refused', `calendarView delta: the deltaLink names ${hostOf(next)}, which is not MICROSOFT_GRAPH_API_URL`);
        await deps.subscriptions.setDeltaLink(userId, next, context.now(), link === null ? windowStartedAt : undefined);
        return;
      } catch (error) {
        if (!(dropsLink(error) && link !== null && restarts < MAX_FULL_SYNC_RESTARTS)) throw error;
        context.logger.warn(
          error.kind === 'link_refused'
            ? 'stored delta link refused (not MICROSOFT_GRAPH_API_URL): dropped, running a full sync'
            : `delta link rejected (${error.status ?? 410} ${error.kind === 'final' ? 'Bad Request' : 'Gone'}): dropped, running a full sync`,
          { userId, error: error.message },
        );
        await deps.subscriptions.setDeltaLink(userId, null, context.now());
        tally.linkDropped = true;
        link = null;
      }
    }
  }

  return mailboxSyncKind.handler(async ({ userId }, _job, context): Promise<HandlerResult> => {
    const mailbox = await deps.subscriptions.getMailbox(userId);
    if (mailbox === undefined || !mailbox.watching) return { kind: 'final', state: 'skipped', reason: `mailbox ${userId} is not watched` };

    const startedAt = context.now();
    const tally: SyncTally = { mode: 'incremental', pages: 0, changed: 0, stored: 0, duplicates: 0, skipped: {}, linkDropped: false, windowRolled: false };
    // A link made before windows were recorded, or whose window is a day old, makes way for a full sync.
    const stale = mailbox.deltaLink !== null && (mailbox.windowStartedAt ?? 0) + WINDOW_ROLL_MS <= startedAt;
    tally.windowRolled = stale;
    try {
      if (stale) await readChangesSince(userId, mailbox.deltaLink, context, tally, startedAt);
      await sync(userId, stale ? null : mailbox.deltaLink, context, tally, startedAt);
      await deps.subscriptions.recordMailboxOutcome(userId, { syncedAt: context.now() }, context.now());
    } catch (error) {
      deps.onSync?.('failed');
      const message = storableText(error instanceof Error ? error.message : String(error));
      // A run the worker stopped (shutdown, a lost lease) runs again; it did not fail.
      if (!context.signal.aborted) await recordError(userId, message, context);
      context.logger.warn('microsoft mailbox sync failed', { userId, error: message, ...tally });
      if (error instanceof GraphApiError) return failure(error, startedAt, context.now());
      // Not Graph's (the store, a bug): retried on the worker's schedule, dead after its last step.
      return {
        kind: 'retryable',
        error: message,
        attempt: { startedAt, durationMs: context.now() - startedAt, errorClass: 'exception', responseExcerpt: message.slice(0, 4096) },
      };
    }
    context.logger.info('microsoft mailbox synced', { userId, ...tally });
    deps.onSync?.(tally.linkDropped ? 'full_resync' : 'succeeded');
    return { kind: 'succeeded', result: { userId, ...tally } };
  });

  /** The failure is the mailbox's last error (GET /admin/calendars), unless the store itself cannot take it. */
  async function recordError(userId: string, message: string, context: JobContext): Promise<void> {
    try {
      await deps.subscriptions.recordMailboxOutcome(userId, { error: message.slice(0, 1000) }, context.now());
    } catch (error) {
      context.logger.error('microsoft sync failure not recorded on the mailbox', { userId, error: (error as Error).message });
    }
  }
}

/**
 * An event's dedupe key: its id and `lastModifiedDateTime`, so each state is stored once. A removal
 * (`@removed`) carries no time of its own: its key names the read that returned it, so the same
 * read again stores nothing twice while a later removal of the same event (back in the window,
 * removed again) is a new one.
 */
function dedupeKeyOf(event: { eventId: string; updated?: string | undefined; status?: string | undefined }, readFrom: DeltaStart): string {
  if (event.status === 'cancelled' && (event.updated ?? '') === '') {
    const read = 'link' in readFrom ? createHash('sha256').update(readFrom.link).digest('hex').slice(0, 16) : 'full';
    return `microsoft:${event.eventId}::cancelled:${read}`;
  }
  return `microsoft:${event.eventId}:${event.updated ?? ''}${event.status === 'cancelled' ? ':cancelled' : ''}`;
}

const hostOf = (link: string): string => (URL.canParse(link) ? new URL(link).origin : 'no URL');

function failure(error: GraphApiError, startedAt: number, now: number): HandlerResult {
  // Graph says when to come back after a 429 or 503 (docs/protocols.md §7).
  const retryable = error.kind === 'retryable' || error.kind === 'sync_state_gone';
  return syncFailure(
    { message: error.message, status: error.status, retryAfterMs: error.retryAfterMs, retryable, errorClass: `graph_${error.kind}` },
    startedAt,
    now,
  );
}
