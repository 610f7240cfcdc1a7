import { expect, it } from 'vitest';

import { calendarEventsRouter } from '../../routes/calendar-events.ts';
import { listenRouters } from '../support/app-harness.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { type Engine, openRealStore } from '../support/real-store.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { postCalendarEvent, TEAMS_MEETING, WEBHOOK_SECRET } from './support/signed-events.ts';

/*
 * What the signed bodies of POST /calendar/events may hold: links only as absolute http(s) URLs,
 * and no field the version-1 schema does not know, at any level. Before, a recording's
 * `javascript:` link was stored and forwarded, and a recording's host sent as `organizer` (the
 * meeting body's name) was dropped without a word.
 */

const RECORDING = {
  kind: 'recording',
  version: 1,
  id: 'rec-42',
  recordingUrl: 'https://recorder.example.net/r/42',
  callUrl: 'https://meet.example.net/j/42',
  host: { email: 'ana.rep@example.com', name: 'Ana Rep' },
  attendees: [{ email: 'gail@globex.com' }],
};

const cleanups = cleanupAfterEach();

interface Issue {
  path: string;
  code: string;
  message: string;
}

async function route(engine: Engine) {
  const database = await openRealStore(engine, 'calendar-body');
  const logs = captureLogs({ secrets: [WEBHOOK_SECRET] });
  const server = await listenRouters(
    [
      calendarEventsRouter({
        config: { CALENDAR_WEBHOOK_SECRETS: [WEBHOOK_SECRET], CALENDAR_MAX_BODY: 64 * 1024 },
        store: database.store,
        logger: logs.logger,
      }),
    ],
    logs.logger,
  );
  cleanups.push(database.close, server.close);
  let sent = 0;
  const post = async (body: object) => {
    const response = await postCalendarEvent(server.url, JSON.stringify(body), { id: `msg_${++sent}` });
    return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string; details: { issues: Issue[] } } } };
  };
  return { post, counts: database.counts };
}

const NOTHING_STORED = { messages: 0, events: 0, jobs: 0, calendars: 0 };

describeEachEngine('POST /calendar/events body rules', (engine) => {
  it.each([
    ['recordingUrl', 'javascript:alert(document.cookie)'],
    ['recordingUrl', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
    ['callUrl', 'javascript://meet.example.net/%0aalert(1)'],
    ['callUrl', 'data:,hello'],
    ['recordingUrl', 'ftp://recorder.example.net/r/42'],
    ['recordingUrl', '/r/42'],
  ])('when a signed recording carries %s %j, then 400 names the field and nothing is stored', async (field, link) => {
    const h = await route(engine);

    const answer = await h.post({ ...RECORDING, [field]: link });

    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('invalid_body');
    expect(answer.body.error?.message).toBe(`body does not match the calendar event schema (version 1): ${field}: expected an absolute http or https URL`);
    expect(answer.body.error?.details.issues).toEqual([{ path: field, code: 'invalid_format', message: 'expected an absolute http or https URL' }]);
    expect(await h.counts()).toEqual(NOTHING_STORED);
  });

  it.each([
    ['joinUrl', 'javascript:alert(1)', 'expected an absolute http or https URL'],
    ['status', 'deleted', 'expected "confirmed" or "cancelled"'],
    ['iCalUId', 'two words', 'expected 1 to 1024 characters without spaces'],
  ])('when a signed meeting carries %s %j, then 400 names the field and nothing is stored', async (field, value, message) => {
    const h = await route(engine);

    const answer = await h.post({ ...TEAMS_MEETING, [field]: value });

    expect(answer.status).toBe(400);
    expect(answer.body.error?.details.issues).toEqual([expect.objectContaining({ path: field, message })]);
    expect(await h.counts()).toEqual(NOTHING_STORED);
  });

  it('when a signed recording links over http and HTTPS in upper case, then it is stored with its import job', async () => {
    const h = await route(engine);

    const answer = await h.post({ ...RECORDING, recordingUrl: 'HTTPS://RECORDER.EXAMPLE.NET/r/42', callUrl: 'http://meet.example.net/j/42' });

    expect(answer.status).toBe(202);
    expect(await h.counts()).toEqual({ messages: 1, events: 1, jobs: 1, calendars: 0 });
  });

  it('when a recording names its host "organizer" as a meeting does, then 400 names the field with the right name and nothing is stored', async () => {
    const h = await route(engine);
    const { host, ...withoutHost } = RECORDING;

    const answer = await h.post({ ...withoutHost, organizer: host });

    expect(answer.status).toBe(400);
    expect(answer.body.error?.details.issues).toEqual([
      { path: 'organizer', code: 'unrecognized_keys', message: 'unknown field; a recording names its host "host"' },
    ]);
    expect(answer.body.error?.message).toContain('organizer: unknown field; a recording names its host "host"');
    expect(await h.counts()).toEqual(NOTHING_STORED);
  });

  it('when a meeting names its organizer "host" as a recording does, then 400 names both fields and nothing is stored', async () => {
    const h = await route(engine);
    const { organizer, ...withoutOrganizer } = TEAMS_MEETING;

    const answer = await h.post({ ...withoutOrganizer, host: organizer });

    expect(answer.status).toBe(400);
    expect(answer.body.error?.details.issues).toEqual(
      expect.arrayContaining([
        { path: 'host', code: 'unrecognized_keys', message: 'unknown field; a meeting names its host "organizer"' },
        expect.objectContaining({ path: 'organizer', code: 'invalid_type' }),
      ]),
    );
    expect(await h.counts()).toEqual(NOTHING_STORED);
  });

  it('when unknown fields sit at every level of a meeting, then 400 lists each at its own path and nothing is stored', async () => {
    const h = await route(engine);

    const answer = await h.post({
      ...TEAMS_MEETING,
      notes: 'top level',
      organizer: { ...TEAMS_MEETING.organizer, title: 'VP Sales' },
      attendees: [{ email: 'hank.buyer@globex.test', phone: '+1 555 0100' }],
      salesforce: { opportunityId: '0065w000023STAm', contactId: '0035w000023STAm' },
    });

    expect(answer.status).toBe(400);
    expect(answer.body.error?.details.issues.map((issue) => [issue.path, issue.code, issue.message]).sort()).toEqual([
      ['attendees.0.phone', 'unrecognized_keys', 'unknown field'],
      ['notes', 'unrecognized_keys', 'unknown field'],
      ['organizer.title', 'unrecognized_keys', 'unknown field'],
      ['salesforce.contactId', 'unrecognized_keys', 'unknown field'],
    ]);
    expect(await h.counts()).toEqual(NOTHING_STORED);
  });

  it("when an unknown field sits in a recording's attendee, then 400 names it and nothing is stored", async () => {
    const h = await route(engine);

    const answer = await h.post({ ...RECORDING, attendees: [{ email: 'gail@globex.com', role: 'buyer' }] });

    expect(answer.status).toBe(400);
    expect(answer.body.error?.details.issues).toEqual([{ path: 'attendees.0.role', code: 'unrecognized_keys', message: 'unknown field' }]);
    expect(await h.counts()).toEqual(NOTHING_STORED);
  });

  it('when a meeting says kind "meeting", then it is stored as a meeting; a misspelt kind is a 400 naming kind', async () => {
    const h = await route(engine);

    const meeting = await h.post({ ...TEAMS_MEETING, kind: 'meeting' });
    const misspelt = await h.post({ ...RECORDING, kind: 'Recording' });

    expect(meeting.status).toBe(202);
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.error?.details.issues).toEqual(
      expect.arrayContaining([{ path: 'kind', code: 'invalid_value', message: 'expected "meeting" or "recording"' }]),
    );
    expect(await h.counts()).toEqual({ messages: 1, events: 1, jobs: 1, calendars: 0 });
  });
});
