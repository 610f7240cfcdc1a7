import { expect, it } from 'vitest';

import { recordingCompletedEvent, sendEvent, urlValidationEvent, ZOOM_UUIDS } from '../fakes/fake-zoom.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import { SECRET, startZoomBridge, storedCounts, storedEvents } from './support/zoom-bridge.ts';

/*
 * What the Zoom route refuses, on both engines, and that a refusal stores nothing: a forged,
 * stale or unsigned request (401, checked first, on the raw bytes), and a signed body holding text
 * no store keeps faithfully (U+0000, an unpaired surrogate, JSON nested absurdly deep): 400
 * naming the field. PostgreSQL cannot store U+0000 at all, so acknowledging such a body would store
 * it on SQLite only, or answer 500.
 */

const cleanups = cleanupAfterEach();
const NOTHING = { messages: 0, events: 0, jobs: 0 };
const NUL = 'holds U+0000 (NUL), which cannot be stored';

/** A recording.completed as JSON text, with `extra` spliced into its meeting object (raw JSON, so escapes arrive as sent). */
const withMeetingField = (extra: string) => JSON.stringify(recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain })).replace('"uuid":', `${extra},"uuid":`);

describeEachEngine('POST /recordings/zoom/events refusals through startBridge', (engine) => {
  it('when a request is forged, stale or unsigned, then it is refused with 401 and nothing is stored', async () => {
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    const event = recordingCompletedEvent();

    const answers = [
      await sendEvent(url, 'not-the-secret-token', event),
      await sendEvent(url, SECRET, event, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
      await sendEvent(url, SECRET, event, { omitSignature: true }),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401]);
    expect(answers.map((answer) => (JSON.parse(answer.body) as { error: { code: string } }).error.code)).toEqual(Array(3).fill('invalid_signature'));
    expect(await storedCounts(databaseUrl)).toEqual(NOTHING);
    expect(momentum.requests).toHaveLength(0);
  });

  it('when ZOOM_WEBHOOK_SECRET_TOKENS is empty, then the route answers 503 and stores nothing', async () => {
    const { url, databaseUrl } = await startZoomBridge(engine, cleanups, { env: { ZOOM_WEBHOOK_SECRET_TOKENS: '' } });

    const answer = await sendEvent(url, SECRET, recordingCompletedEvent());

    expect(answer.status).toBe(503);
    expect(await storedCounts(databaseUrl)).toEqual(NOTHING);
  });

  it.each([
    ['the uuid', JSON.stringify(recordingCompletedEvent({ uuid: 'abc\u0000def==' })), 'payload.object.uuid', NUL],
    ['the topic', JSON.stringify(recordingCompletedEvent({ topic: 'Pricing\u0000review' })), 'payload.object.topic', NUL],
    ['a field the bridge does not read (timezone)', JSON.stringify(recordingCompletedEvent({ timezone: 'America/\u0000' })), 'payload.object.timezone', NUL],
    ['a key', withMeetingField('"x\\u0000":1'), 'payload.object', `has a key that ${NUL}`],
    [
      'an unpaired surrogate (agenda)',
      withMeetingField('"agenda":"Globex \\ud800"'),
      'payload.object.agenda',
      'holds an unpaired UTF-16 surrogate, which is not Unicode text',
    ],
    [
      'JSON nested 100 levels deep',
      withMeetingField(`"ext":${'['.repeat(100)}${']'.repeat(100)}`),
      expect.stringMatching(/^payload\.object\.ext(\.0)+$/),
      'nests deeper than 64 levels',
    ],
    ['the plainToken of an endpoint.url_validation', JSON.stringify(urlValidationEvent('plain\u0000token')), 'payload.plainToken', NUL],
  ])('when %s holds it in a signed body, then 400 names the field and nothing is stored', async (_case, rawBody, path, message) => {
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups);

    const answer = await sendEvent(url, SECRET, undefined, { rawBody });

    expect(answer.status).toBe(400);
    const { error } = JSON.parse(answer.body) as { error: { code: string; message: string; details: unknown } };
    expect(error).toMatchObject({ code: 'invalid_body', details: { issues: [{ path, code: 'unstorable_text', message }] } });
    expect(error.message).toMatch(/^body: payload\.\S+ /);
    expect(await storedCounts(databaseUrl)).toEqual(NOTHING);
    expect(momentum.requests).toHaveLength(0);
  });

  it('when a forged request holds U+0000, then the signature is what is refused (401): an unsigned body is never read', async () => {
    const { url, databaseUrl } = await startZoomBridge(engine, cleanups);

    const answer = await sendEvent(url, 'not-the-secret-token', recordingCompletedEvent({ topic: 'Pricing\u0000review' }));

    expect(answer.status).toBe(401);
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe('invalid_signature');
    expect(await storedCounts(databaseUrl)).toEqual(NOTHING);
  });

  it('when the body is not UTF-8 (a surrogate encoded as bytes), then 400 and nothing is stored', async () => {
    const { url, databaseUrl } = await startZoomBridge(engine, cleanups);
    const text = JSON.stringify(recordingCompletedEvent({ topic: 'Globex SURROGATE' }));
    const bytes = Buffer.concat([
      Buffer.from(text.slice(0, text.indexOf('SURROGATE'))),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from(text.slice(text.indexOf('SURROGATE') + 9)),
    ]);

    const answer = await sendEvent(url, SECRET, undefined, { rawBytes: bytes });

    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'invalid_event', message: 'body is not UTF-8 JSON' } });
    expect(await storedCounts(databaseUrl)).toEqual(NOTHING);
  });

  it('when the same recording arrives without the U+0000, then it is stored and imported (the refusal was about the character alone)', async () => {
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain, topic: 'Pricing\u0000review' }));

    const answer = await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain, topic: 'Pricing review' }));

    expect(answer.status).toBe(200);
    const [request] = await momentum.waitFor(1, 15_000);
    expect(request?.body).toMatchObject({ meeting: { id: ZOOM_UUIDS.plain, title: 'Pricing review' } });
    await waitSettled(databaseUrl);
    expect(await storedEvents(databaseUrl)).toMatchObject([{ source: 'zoom', state: 'mapped' }]);
    await expectSettled(databaseUrl);
  });
});
