import { describe, expect, it } from 'vitest';

import { ZOOM_UUIDS } from './fake-zoom.ts';
import { accessToken, askToken, call, encodeUuid, type Json, participantsOf, useZoomKit } from './support/fake-zoom-kit.ts';

/*
 * The fake Zoom's participants API, pinned against docs/protocols.md §8: paging, tokens and scopes,
 * scripted failures, and the double encoding of uuids that begin with `/` or hold `//`.
 */

const { fakeZoom } = useZoomKit();

describe('fake Zoom GET /v2/past_meetings/{uuid}/participants', () => {
  const five = ['Ana', 'Bo', 'Cy', 'Di', 'Ed'].map((name) => ({ name, user_email: `${name.toLowerCase()}@example.com` }));

  it('when a meeting has more participants than a page holds, then next_page_token walks the pages and the last one has an empty token', async () => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);

    // Act
    const pages: Json[] = [];
    let next = '';
    do {
      const reply = await participantsOf(fake, token, encodeUuid(ZOOM_UUIDS.plain), `page_size=300&next_page_token=${encodeURIComponent(next)}`);
      expect(reply.status).toBe(200);
      pages.push(reply.body);
      next = String(reply.body.next_page_token);
    } while (next !== '');

    // Assert
    expect(pages).toHaveLength(3);
    expect(pages[0]).toMatchObject({ page_count: 3, page_size: 2, total_records: 5 });
    const people = pages.flatMap((page) => page.participants as Json[]);
    expect(people.map((person) => person.user_email)).toEqual(five.map((person) => person.user_email));
    expect(people[0]).toEqual({
      id: expect.any(String) as string,
      name: 'Ana',
      user_email: 'ana@example.com',
      join_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as string,
      leave_time: expect.stringMatching(/Z$/) as string,
      duration: 2400,
      status: 'in_meeting',
    });
    expect(fake.requestsOf('participants').every((item) => item.meetingUuid === ZOOM_UUIDS.plain)).toBe(true);
  });

  it('when a page token is made up, then 400 code 300', async () => {
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);

    const reply = await participantsOf(fake, token, encodeUuid(ZOOM_UUIDS.plain), 'page_size=300&next_page_token=made-up');

    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe(300);
  });

  it.each([ZOOM_UUIDS.leadingSlash, ZOOM_UUIDS.doubleSlash])('when the uuid %s is double-encoded, then its participants are answered', async (uuid) => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(uuid, five.slice(0, 1));

    // Act
    const reply = await participantsOf(fake, token, encodeUuid(uuid));

    // Assert
    expect(reply.status).toBe(200);
    expect(reply.body.participants).toEqual([expect.objectContaining({ name: 'Ana' })]);
    expect(fake.requestsOf('participants')[0]).toMatchObject({
      rawPath: `/v2/past_meetings/${encodeURIComponent(encodeURIComponent(uuid))}/participants`,
      meetingUuid: uuid,
    });
  });

  it.each([
    ['single-encoded', ZOOM_UUIDS.leadingSlash, encodeUuid(ZOOM_UUIDS.leadingSlash, 'once')],
    ['single-encoded', ZOOM_UUIDS.doubleSlash, encodeUuid(ZOOM_UUIDS.doubleSlash, 'once')],
    ['not encoded', ZOOM_UUIDS.leadingSlash, ZOOM_UUIDS.leadingSlash],
    ['double-encoded though the rule does not ask for it', ZOOM_UUIDS.plain, encodeUuid(ZOOM_UUIDS.plain, 'twice')],
  ])('when the uuid is %s (%s), then 404 code 3001 as for an unknown meeting', async (_how, uuid, pathUuid) => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(uuid, five);

    // Act
    const reply = await participantsOf(fake, token, pathUuid);

    // Assert
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ code: 3001, message: expect.stringMatching(/^Meeting does not exist: .+\.$/) as string });
    expect(fake.requestsOf('participants')[0]).toMatchObject({ rawPath: `/v2/past_meetings/${pathUuid}/participants`, meetingUuid: undefined });
  });

  it('when the plain uuid is encoded once, then it is found; once forgotten, 404; once a year old, 400 code 12702', async () => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);
    const path = encodeUuid(ZOOM_UUIDS.plain);

    // Act
    const found = await participantsOf(fake, token, path);
    fake.forgetMeeting(ZOOM_UUIDS.plain);
    const forgotten = await participantsOf(fake, token, path);
    fake.forgetMeeting(ZOOM_UUIDS.plain, { yearOld: true });
    const old = await participantsOf(fake, token, path);
    const unknown = await participantsOf(fake, token, encodeUuid('zzzzNeverHeldzzzzzzzzz=='));

    // Assert
    expect(path).toBe('4444AAAiAAAAAiAiAiiAii%3D%3D');
    expect(found.status).toBe(200);
    expect(forgotten).toMatchObject({ status: 404, body: { code: 3001, message: 'Meeting does not exist: 4444AAAiAAAAAiAiAiiAii==.' } });
    expect(old).toMatchObject({ status: 400, body: { code: 12702, message: 'Can not access a meeting a year ago.' } });
    expect(unknown).toMatchObject({ status: 404, body: { code: 3001 } });
  });

  it('when the token has expired (by its lifetime or expireTokens), or is missing or unknown, then 401 code 124', async () => {
    // Arrange
    const shortLived = await fakeZoom({ tokenExpiresIn: 0 });
    const fake = await fakeZoom();
    shortLived.setParticipants(ZOOM_UUIDS.plain, five);
    fake.setParticipants(ZOOM_UUIDS.plain, five);
    const path = encodeUuid(ZOOM_UUIDS.plain);
    const issued = await askToken(shortLived);
    const good = await accessToken(fake);

    // Act
    const byLifetime = await participantsOf(shortLived, String(issued.body.access_token), path);
    const before = await participantsOf(fake, good, path);
    fake.expireTokens();
    const afterExpiry = await participantsOf(fake, good, path);
    const unknown = await participantsOf(fake, 'eyJmade.up', path);
    const missing = await call(`${fake.apiUrl}/past_meetings/${path}/participants`);

    // Assert
    expect(issued.body.expires_in).toBe(0);
    expect(byLifetime).toMatchObject({ status: 401, body: { code: 124, message: 'Access token is expired.' } });
    expect(before.status).toBe(200);
    expect(afterExpiry).toMatchObject({ status: 401, body: { code: 124 } });
    expect(unknown).toMatchObject({ status: 401, body: { code: 124, message: 'Invalid access token.' } });
    expect(missing).toMatchObject({ status: 401, body: { code: 124 } });
  });

  it('when the app lacks the participants scope, then 400 code 4711', async () => {
    const fake = await fakeZoom({ scopes: ['meeting:read:meeting:admin'] });
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);

    const reply = await participantsOf(fake, token, encodeUuid(ZOOM_UUIDS.plain));

    expect(reply).toMatchObject({ status: 400, body: { code: 4711 } });
  });

  it('when scripted to answer 429 with Retry-After after one good call, then the second call gets it and the third succeeds', async () => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);
    fake.fail('participants', 429, { after: 1, headers: { 'retry-after': '2' } });
    const path = encodeUuid(ZOOM_UUIDS.plain);

    // Act
    const first = await participantsOf(fake, token, path);
    const second = await participantsOf(fake, token, path);
    const third = await participantsOf(fake, token, path);

    // Assert
    expect([first.status, second.status, third.status]).toEqual([200, 429, 200]);
    expect(second.headers['retry-after']).toBe('2');
    expect(second.body).toEqual({ code: 429, message: expect.stringContaining('rate limit') as string });
    expect(fake.requestsOf('participants').map((item) => item.status)).toEqual([200, 429, 200]);
  });

  it('when scripted to answer 503 twice, then two calls get it and the next succeeds', async () => {
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);
    fake.fail('participants', 503, { times: 2 });
    const path = encodeUuid(ZOOM_UUIDS.plain);

    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await participantsOf(fake, token, path)).status);

    expect(statuses).toEqual([503, 503, 200]);
  });
});
