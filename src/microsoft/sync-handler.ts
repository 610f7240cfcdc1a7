import { calendarRecordKey } from '../calendar/calendar-event.ts';
import { syncFailure } from '../calendar/sync-failure.ts';
import type { HandlerResult, JobContext, JobHandler } from '../jobs/types.ts';
import { mapEventJobsFor } from '../mapping/map-event-job.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';
import type { InboundEvent, Inbox, NewJob } from '../store/types.ts';
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
// A delta link rejected again straight after a full sync is Graph's problem, not a loop of ours.
const MAX_FULL_SYNC_RESTARTS = 1;

export interface MailboxSyncDeps {
  subscriptions: SubscriptionStore;
  client: GraphClient;
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
 * `microsoft-sync` jobs (docs/protocols.md §7): calendarView/delta from the stored delta link (or
 * the full-sync window) through every `@odata.nextLink` to the `@odata.deltaLink`; each changed
 * event stored once (dedupe `microsoft:<id>:<lastModifiedDateTime>`) with its mapping job. The new
 * delta link is stored only after the last page, so a failure part-way repeats the whole range
 * (the dedupe absorbs what was already stored). 410 Gone drops the link and runs a full sync.
 */
export function createMailboxSyncHandler(deps: MailboxSyncDeps): JobHandler {
  const jobsFor = deps.jobsFor ?? mapEventJobsFor(calendarRecordKey);

  async function storePage(userId: string, items: unknown[], tally: SyncTally): Promise<void> {
    const events = [];
    for (const item of items) {
      const result = normaliseGraphEvent(item, userId, deps.internalDomains);
      if (result.kind === 'skipped') tally.skipped[result.reason] = (tally.skipped[result.reason] ?? 0) + 1;
      else events.push({ dedupeKey: `microsoft:${result.event.eventId}:${result.event.updated ?? ''}`, parsedPayload: result.event });
    }
    tally.changed += items.length;
    if (events.length === 0) return;
    const stored = await deps.store.ingest({ source: 'microsoft', senderId: userId, rawPayload: JSON.stringify({ userId, value: items }), events }, jobsFor);
    tally.stored += stored.created.length;
    tally.duplicates += stored.duplicates.length;
  }

  async function runSync(userId: string, deltaLink: string | null, context: JobContext, tally: SyncTally): Promise<string | undefined> {
    const now = context.now();
    tally.mode = deltaLink !== null ? 'incremental' : 'full';
    let from: Parameters<GraphClient['delta']>[1] =
      deltaLink !== null
        ? { link: deltaLink }
        : {
            window: { start: new Date(now - deps.fullSyncDaysBack * DAY_MS).toISOString(), end: new Date(now + deps.fullSyncDaysAhead * DAY_MS).toISOString() },
          };
    for (;;) {
      const page = await deps.client.delta(userId, from, context.signal);
      tally.pages += 1;
      await storePage(userId, page.value, tally);
      const next = page['@odata.nextLink'];
      if (next !== undefined) from = { link: next };
      else return page['@odata.deltaLink']; // only the last page carries it
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
    let link = stale ? null : mailbox.deltaLink;
    for (let restarts = 0; ; restarts += 1) {
      try {
        const windowStartedAt = context.now();
        const next = await runSync(userId, link, context, tally);
        if (next !== undefined) await deps.subscriptions.setDeltaLink(userId, next, context.now(), link === null ? windowStartedAt : undefined);
        await deps.subscriptions.recordMailboxOutcome(userId, { syncedAt: context.now() }, context.now());
        context.logger.info('microsoft mailbox synced', { userId, ...tally });
        deps.onSync?.(tally.linkDropped ? 'full_resync' : 'succeeded');
        return { kind: 'succeeded', result: { userId, ...tally } };
      } catch (error) {
        if (error instanceof GraphApiError && error.kind === 'sync_state_gone' && link !== null && restarts < MAX_FULL_SYNC_RESTARTS) {
          context.logger.warn('delta link rejected (410 Gone), running a full sync', { userId });
          await deps.subscriptions.setDeltaLink(userId, null, context.now());
          tally.linkDropped = true;
          link = null;
          continue;
        }
        if (!(error instanceof GraphApiError)) throw error; // a bug: the worker logs and retries it
        await deps.subscriptions.recordMailboxOutcome(userId, { error: error.message }, context.now());
        deps.onSync?.('failed');
        return failure(error, startedAt, context.now());
      }
    }
  });
}

function failure(error: GraphApiError, startedAt: number, now: number): HandlerResult {
  // Graph says when to come back after a 429 or 503 (docs/protocols.md §7).
  const retryable = error.kind === 'retryable' || error.kind === 'sync_state_gone';
  return syncFailure(
    { message: error.message, status: error.status, retryAfterMs: error.retryAfterMs, retryable, errorClass: `graph_${error.kind}` },
    startedAt,
    now,
  );
}
