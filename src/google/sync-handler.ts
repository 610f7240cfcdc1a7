import { calendarRecordKey } from '../calendar/calendar-event.ts';
import { syncFailure } from '../calendar/sync-failure.ts';
import { storableText } from '../core/storable.ts';
import type { HandlerResult, JobContext, JobHandler } from '../jobs/types.ts';
import { mapEventJobsFor } from '../mapping/map-event-job.ts';
import type { ChannelStore } from '../store/channel-store.ts';
import type { InboundEvent, Inbox, NewJob } from '../store/types.ts';
import type { CalendarClient, ListQuery } from './calendar-client.ts';
import { GoogleApiError } from './google-api-error.ts';
import { normaliseGoogleEvent } from './normalise-google-event.ts';
import { calendarSyncKind } from './sync-jobs.ts';

const DAY_MS = 86_400_000;
// A sync that keeps getting 410 on a token it just received is a bug or a broken calendar: stop looping.
const MAX_FULL_SYNC_RESTARTS = 1;

export interface SyncHandlerDeps {
  channels: ChannelStore;
  client: CalendarClient;
  store: Pick<Inbox, 'ingest'>;
  /** INTERNAL_EMAIL_DOMAINS (for the "no external attendees" skip). */
  internalDomains: readonly string[];
  /** GOOGLE_FULL_SYNC_DAYS and GOOGLE_FULL_SYNC_DAYS_AHEAD: the window of a full sync. */
  fullSyncDaysBack: number;
  fullSyncDaysAhead: number;
  /** The jobs each newly stored event gets; a `map-event` job by default. */
  jobsFor?: (event: InboundEvent) => NewJob[];
}

interface SyncTally {
  mode: 'incremental' | 'full';
  pages: number;
  changed: number;
  stored: number;
  duplicates: number;
  skipped: Record<string, number>;
  tokenDropped: boolean;
}

/**
 * `calendar-sync` jobs (docs/protocols.md §3): events.list from the stored sync token to the last page,
 * each changed event stored once (dedupe `google:<id>:<updated>`) with its mapping job; the new
 * token is stored only after the last page, so a failure part-way repeats the whole range (the
 * dedupe absorbs what was already stored). 410 Gone drops the token and runs a bounded full sync.
 */
export function createCalendarSyncHandler(deps: SyncHandlerDeps): JobHandler {
  const jobsFor = deps.jobsFor ?? mapEventJobsFor(calendarRecordKey);

  async function storePage(calendarId: string, senderId: string, items: unknown[], tally: SyncTally): Promise<void> {
    const events = [];
    for (const item of items) {
      const result = normaliseGoogleEvent(item, calendarId, deps.internalDomains);
      if (result.kind === 'skipped') tally.skipped[result.reason] = (tally.skipped[result.reason] ?? 0) + 1;
      else
        events.push({
          dedupeKey: `google:${result.event.eventId}:${result.event.updated ?? ''}${result.event.status === 'cancelled' ? ':cancelled' : ''}`,
          parsedPayload: result.event,
        });
    }
    tally.changed += items.length;
    if (events.length === 0) return;
    const stored = await deps.store.ingest({ source: 'google', senderId, rawPayload: JSON.stringify({ calendarId, items }), events }, jobsFor);
    tally.stored += stored.created.length;
    tally.duplicates += stored.duplicates.length;
  }

  async function runSync(calendarId: string, senderId: string, syncToken: string | null, context: JobContext, tally: SyncTally): Promise<string | undefined> {
    const now = context.now();
    const base: ListQuery =
      syncToken !== null
        ? { syncToken }
        : { timeMin: new Date(now - deps.fullSyncDaysBack * DAY_MS).toISOString(), timeMax: new Date(now + deps.fullSyncDaysAhead * DAY_MS).toISOString() };
    tally.mode = syncToken !== null ? 'incremental' : 'full';
    let pageToken: string | undefined;
    for (;;) {
      const page = await deps.client.listEvents(calendarId, { ...base, ...(pageToken ? { pageToken } : {}) }, context.signal);
      tally.pages += 1;
      await storePage(calendarId, senderId, page.items, tally);
      if (page.nextPageToken) pageToken = page.nextPageToken;
      else return page.nextSyncToken; // only the last page carries it
    }
  }

  return calendarSyncKind.handler(async ({ calendarId, channelId }, _job, context): Promise<HandlerResult> => {
    const calendar = await deps.channels.getCalendar(calendarId);
    if (calendar === undefined || !calendar.watching) return { kind: 'final', state: 'skipped', reason: `calendar ${calendarId} is not watched` };

    const startedAt = context.now();
    const tally: SyncTally = { mode: 'incremental', pages: 0, changed: 0, stored: 0, duplicates: 0, skipped: {}, tokenDropped: false };
    let token = calendar.syncToken;
    for (let restarts = 0; ; restarts += 1) {
      try {
        const next = await runSync(calendarId, channelId ?? calendarId, token, context, tally);
        // Google ends every list with a nextSyncToken (docs/protocols.md §3): without one the next
        // sync could not be incremental, and after a 410 every sync would be a full one that never
        // sees a deletion. The round fails, visibly, and is read again.
        if (next === undefined)
          throw new GoogleApiError('retryable', 'events.list: the last page carried no nextSyncToken; nothing moved, the next try reads the range again');
        await deps.channels.setSyncToken(calendarId, next, context.now());
        await deps.channels.recordCalendarOutcome(calendarId, { syncedAt: context.now() }, context.now());
        context.logger.info('calendar synced', { calendarId, ...tally });
        return { kind: 'succeeded', result: { calendarId, ...tally } };
      } catch (error) {
        if (error instanceof GoogleApiError && error.kind === 'sync_token_invalid' && token !== null && restarts < MAX_FULL_SYNC_RESTARTS) {
          context.logger.warn('sync token rejected (410 Gone), running a full sync', { calendarId });
          await deps.channels.setSyncToken(calendarId, null, context.now());
          tally.tokenDropped = true;
          token = null;
          continue;
        }
        // A run the worker stopped (shutdown, a lost lease) runs again; it did not fail.
        if (!context.signal.aborted) await recordError(calendarId, error, context);
        return failure(error, startedAt, context.now());
      }
    }
  });

  /** The failure is the calendar's last error (GET /admin/calendars), whatever failed: Google, or the store itself. */
  async function recordError(calendarId: string, error: unknown, context: JobContext): Promise<void> {
    const message = storableText(error instanceof Error ? error.message : String(error)).slice(0, 1000);
    try {
      await deps.channels.recordCalendarOutcome(calendarId, { error: message }, context.now());
    } catch (recordFailure) {
      context.logger.error('google sync failure not recorded on the calendar', { calendarId, error: (recordFailure as Error).message });
    }
  }
}

function failure(error: unknown, startedAt: number, now: number): HandlerResult {
  if (!(error instanceof GoogleApiError)) throw error; // a bug: the worker logs and retries it
  return syncFailure(
    {
      message: error.message,
      status: error.status,
      retryAfterMs: error.retryAfterMs,
      retryable: error.kind === 'retryable' || error.kind === 'sync_token_invalid',
      errorClass: `google_${error.kind}`,
      // A 429 is Google asking us to slow down: wait at least a minute (docs/protocols.md §6).
      ...(error.status === 429 ? { minDelayMs: 60_000 } : {}),
    },
    startedAt,
    now,
  );
}
