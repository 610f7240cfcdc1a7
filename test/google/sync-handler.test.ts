import { describe, expect, it } from 'vitest';

import { createCalendarSyncHandler } from '../../src/google/sync-handler.ts';
import { calendarSyncJob } from '../../src/google/sync-jobs.ts';
import type { JobContext } from '../../src/jobs/types.ts';
import type { Job, Store } from '../../src/store/types.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore } from '../support/real-store.ts';
import { storedCounts, storedEvents, storedJobs } from '../support/stored-rows.ts';
import { type GoogleSetup, googleSetup, meetingEvent } from './support/google-setup.ts';

const ANA = 'ana.rep@example.com';
const DAY_MS = 86_400_000;

interface Harness {
  g: GoogleSetup;
  store: Store;
  file: string;
  run: (payload?: unknown) => ReturnType<ReturnType<typeof createCalendarSyncHandler>>;
  now: number;
}

const cleanups = cleanupAfterEach();

async function harness(options: { withoutSyncToken?: boolean } = {}): Promise<Harness> {
  const g = await googleSetup({ pageSize: 2 });
  const { store, file, close: cleanup } = await openRealStore();
  cleanups.push(g.close, cleanup);
  await g.channels.seedCalendars([ANA], Date.now());
  // A Google (or a proxy) whose last page carries no nextSyncToken.
  const client: typeof g.client = options.withoutSyncToken
    ? { ...g.client, listEvents: async (...args) => ({ ...(await g.client.listEvents(...args)), nextSyncToken: undefined }) }
    : g.client;
  const handler = createCalendarSyncHandler({
    channels: g.channels,
    client,
    store,
    internalDomains: ['example.com'],
    fullSyncDaysBack: 30,
    fullSyncDaysAhead: 90,
  });
  const now = Date.now();
  const context: JobContext = { logger: captureLogs().logger, signal: new AbortController().signal, now: () => now };
  const job = (payload: unknown) => ({ id: 1, kind: 'calendar-sync', payload }) as Job;
  return {
    g,
    store,
    file,
    now,
    run: (payload = calendarSyncJob({ calendarId: ANA, channelId: 'bridge-1', trigger: 'push' }).payload) => handler(job(payload), context),
  };
}

describe('calendar-sync job', () => {
  it('when a calendar has no sync token, then a full sync bounded to the window follows every page and stores the token last', async () => {
    const h = await harness();
    h.g.google.upsertEvent(ANA, meetingEvent('a', 2));
    h.g.google.upsertEvent(ANA, meetingEvent('b', 3));
    h.g.google.upsertEvent(ANA, meetingEvent('c', 4));
    h.g.google.upsertEvent(ANA, meetingEvent('far-future', 24 * 120));

    const result = await h.run();

    const lists = h.g.google.requestsOf('list');
    expect(lists.map((request) => request.query.pageToken === undefined)).toEqual([true, false]);
    expect(lists[0]?.query).toMatchObject({
      timeMin: new Date(h.now - 30 * DAY_MS).toISOString(),
      timeMax: new Date(h.now + 90 * DAY_MS).toISOString(),
      singleEvents: 'true',
    });
    expect(result).toMatchObject({ kind: 'succeeded', result: { mode: 'full', pages: 2, changed: 3, stored: 3, duplicates: 0 } });
    expect((await h.g.channels.getCalendar(ANA))?.syncToken).toEqual(expect.any(String));
    const events = storedEvents(h.file);
    expect(events.map((event) => [event.source, event.senderId, event.dedupeKey.split(':').slice(0, 2).join(':')])).toEqual([
      ['google', 'bridge-1', 'google:a'],
      ['google', 'bridge-1', 'google:b'],
      ['google', 'bridge-1', 'google:c'],
    ]);
    expect(events[0]?.dedupeKey).toBe(`google:a:${(events[0]?.payload as { updated: string }).updated}`);
    expect(storedJobs(h.file).map((job) => [job.kind, job.payload, job.eventId])).toEqual(
      events.map((event) => ['map-event', { eventId: event.id }, event.id]),
    );
  });

  it('when a sync token is stored, then only the changes since are fetched, a cancellation is stored, all-day and internal events are skipped with reasons', async () => {
    const h = await harness();
    h.g.google.upsertEvent(ANA, meetingEvent('a', 2));
    h.g.google.upsertEvent(ANA, meetingEvent('b', 3));
    await h.run();
    const firstToken = (await h.g.channels.getCalendar(ANA))?.syncToken;

    h.g.google.upsertEvent(ANA, meetingEvent('a', 2, { summary: 'moved' }));
    h.g.google.cancelEvent(ANA, 'b');
    h.g.google.upsertEvent(ANA, meetingEvent('offsite', 5, { start: { date: '2026-12-01' }, end: { date: '2026-12-02' } }));
    h.g.google.upsertEvent(ANA, meetingEvent('standup', 6, { attendees: [{ email: ANA }, { email: 'bo@example.com' }] }));
    const result = await h.run();

    expect(h.g.google.requestsOf('list').at(-2)?.query.syncToken).toBe(firstToken);
    expect(result).toMatchObject({
      kind: 'succeeded',
      result: { mode: 'incremental', changed: 4, stored: 2, skipped: { 'all-day event': 1, 'no external attendees': 1 } },
    });
    // The cancellation is stored (its mapping cancels what is pending for the meeting): Google's item names little but its id.
    expect(storedEvents(h.file).map((event) => (event.payload as { title?: string }).title ?? (event.payload as { status: string }).status)).toEqual([
      'Meeting a',
      'Meeting b',
      'moved',
      'cancelled',
    ]);
    expect(storedEvents(h.file).at(-1)?.payload).toMatchObject({ origin: 'google', status: 'cancelled', eventId: 'b', calendarId: ANA });
    expect((await h.g.channels.getCalendar(ANA))?.syncToken).not.toBe(firstToken);
  });

  it('when a page fails part-way, then the token is not advanced, the job retries, and the rerun stores nothing twice', async () => {
    const h = await harness();
    for (const id of ['a', 'b', 'c']) h.g.google.upsertEvent(ANA, meetingEvent(id, 2));
    h.g.google.fail('list', 503, { after: 1 });

    const failed = await h.run();
    const tokenAfterFailure = (await h.g.channels.getCalendar(ANA))?.syncToken;
    const rerun = await h.run();

    expect(failed).toMatchObject({ kind: 'retryable', attempt: { status: 503, errorClass: 'google_retryable' } });
    expect(tokenAfterFailure).toBeNull();
    expect(rerun).toMatchObject({ kind: 'succeeded', result: { stored: 1, duplicates: 2 } });
    expect(storedCounts(h.file).events).toBe(3);
    expect((await h.g.channels.getCalendar(ANA))?.syncToken).toEqual(expect.any(String));
  });

  it('when the last page carries no nextSyncToken, then the sync fails visibly and is read again, never succeeding without a token', async () => {
    const h = await harness({ withoutSyncToken: true });
    h.g.google.upsertEvent(ANA, meetingEvent('a', 2));

    const result = await h.run();

    expect(result).toMatchObject({ kind: 'retryable' });
    const calendar = await h.g.channels.getCalendar(ANA);
    expect(calendar?.syncToken).toBeNull();
    expect(calendar?.lastError).toContain('no nextSyncToken');
    // What the pages held is stored all the same: the next try finds it a duplicate.
    expect(storedCounts(h.file).events).toBe(1);
  });

  it('when Google answers 410 Gone to the sync token, then the token is dropped and a full sync runs in the same job', async () => {
    const h = await harness();
    h.g.google.upsertEvent(ANA, meetingEvent('a', 2));
    await h.run();
    h.g.google.upsertEvent(ANA, meetingEvent('b', 3));
    h.g.google.invalidateSyncTokens(ANA);

    const result = await h.run();

    const lists = h.g.google.requestsOf('list').slice(1);
    expect(lists.map((request) => (request.query.syncToken ? 'incremental' : 'full'))).toEqual(['incremental', 'full']);
    expect(result).toMatchObject({ kind: 'succeeded', result: { mode: 'full', tokenDropped: true, stored: 1, duplicates: 1 } });
    expect((await h.g.channels.getCalendar(ANA))?.syncToken).toEqual(expect.any(String));
  });

  it('when Google answers 429 with Retry-After, then the job retries no sooner than asked and the token is kept', async () => {
    const h = await harness();
    await h.g.channels.setSyncToken(ANA, 'kept-token', Date.now());
    h.g.google.fail('list', 429, { headers: { 'retry-after': '120' } });

    const result = await h.run();

    expect(result).toMatchObject({ kind: 'retryable', retryAfterMs: 120_000, minDelayMs: 60_000, attempt: { status: 429 } });
    expect((await h.g.channels.getCalendar(ANA))?.syncToken).toBe('kept-token');
    expect(storedCounts(h.file)).toEqual({ messages: 0, events: 0, jobs: 0 });
  });

  it('when the calendar is no longer watched or the payload is wrong, then the job ends without calling Google', async () => {
    const h = await harness();
    await h.g.channels.unwatchCalendar(ANA, Date.now());

    expect(await h.run()).toEqual({ kind: 'final', state: 'skipped', reason: `calendar ${ANA} is not watched` });
    expect(await h.run({ calendar: ANA })).toMatchObject({ kind: 'final', state: 'dead' });
    expect(h.g.google.requestsOf('list')).toEqual([]);
  });
});
