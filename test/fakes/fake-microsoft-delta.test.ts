import { beforeAll, describe, expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import { type FakeMicrosoft } from './fake-microsoft.ts';
import { ANA, call, events, fakeMicrosoftKit, graphToken, inMinutes, type Json, subscribe, TENANT } from './fake-microsoft-kit.ts';
import { trustTestCertificate } from './trust-test-ca.ts';

/*
 * The fake Microsoft is the yardstick of the Microsoft 365 calendar tests, so its own behaviour is
 * pinned here (docs/protocols.md §7): Graph's calendarView delta rounds, time zones, page sizes, expired tokens, concurrency, and the notifications it sends to the bridge.
 */

beforeAll(() => trustTestCertificate());
const cleanups = cleanupAfterEach();
const { fakeMicrosoft, receiver } = fakeMicrosoftKit(cleanups);

describe('fake Microsoft Graph: calendarView delta', () => {
  const WINDOW = 'startDateTime=2026-03-01T00:00:00Z&endDateTime=2026-03-08T00:00:00Z';
  const at = (day: number, hour: number) => ({ dateTime: `2026-03-0${day}T${String(hour).padStart(2, '0')}:00:00`, timeZone: 'UTC' });

  async function followRound(fake: FakeMicrosoft, token: string, first: string, headers: Record<string, string> = {}) {
    const pages: Json[] = [];
    let next: string | undefined = first;
    while (next !== undefined) {
      const reply = await call(next, { token, headers });
      expect(reply.status).toBe(200);
      pages.push(reply.body);
      next = reply.body['@odata.nextLink'] as string | undefined;
    }
    return { pages, items: pages.flatMap(events), deltaLink: String(pages.at(-1)?.['@odata.deltaLink']) };
  }

  it('when a round starts, then pages of the window’s events follow nextLinks to a deltaLink, every page with @odata.context', async () => {
    // Arrange: three events in the window, one before, one after.
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    const inside = [1, 3, 5].map((day) => fake.upsertEvent(ANA, { subject: `Day ${day}`, start: at(day, 9), end: at(day, 10) }).id);
    fake.upsertEvent(ANA, {
      subject: 'Before',
      start: { dateTime: '2026-02-20T09:00:00', timeZone: 'UTC' },
      end: { dateTime: '2026-02-20T10:00:00', timeZone: 'UTC' },
    });
    fake.upsertEvent(ANA, { subject: 'After', start: at(9, 9), end: at(9, 10) });

    // Act
    const round = await followRound(fake, token, `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`);

    // Assert
    expect(round.pages.map((page) => events(page).length)).toEqual([2, 1]);
    expect(round.items.map((item) => item.id)).toEqual(inside);
    for (const page of round.pages) expect(page['@odata.context']).toBe(`${fake.graphUrl}/$metadata#Collection(event)`);
    expect(String(round.pages[0]?.['@odata.nextLink'])).toMatch(new RegExp(`^${fake.graphUrl}/users/${ANA}/calendarView/delta\\?\\$skiptoken=[\\w-]+$`));
    expect(round.deltaLink).toMatch(new RegExp(`^${fake.graphUrl}/users/${ANA}/calendarView/delta\\?\\$deltatoken=[\\w-]+$`));
    expect(round.items[0]).toMatchObject({
      '@odata.type': '#microsoft.graph.event',
      '@odata.etag': expect.stringMatching(/^W\/".+"$/),
      subject: 'Day 1',
      start: { dateTime: '2026-03-01T09:00:00.0000000', timeZone: 'UTC' },
      end: { dateTime: '2026-03-01T10:00:00.0000000', timeZone: 'UTC' },
      isAllDay: false,
      isCancelled: false,
      organizer: { emailAddress: { address: ANA } },
      attendees: [],
      onlineMeeting: null,
      iCalUId: expect.stringMatching(/^040000008200E00074C5B7101A82E008/),
      lastModifiedDateTime: expect.stringMatching(/\.\d{7}Z$/),
    });
  });

  it('when the deltaLink is followed after an edit, a new event and a deletion, then only those come back, the deletion as @removed', async () => {
    // Arrange
    const fake = await fakeMicrosoft({ pageSize: 10 });
    const token = await graphToken(fake);
    const [kept, edited, removed] = [1, 2, 3].map((day) => fake.upsertEvent(ANA, { subject: `Day ${day}`, start: at(day, 9), end: at(day, 10) }));
    const first = await followRound(fake, token, `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`);
    const edit = fake.upsertEvent(ANA, { id: edited!.id, subject: 'Moved to the afternoon', start: at(2, 15), end: at(2, 16) });
    const added = fake.upsertEvent(ANA, { subject: 'New', start: at(4, 9), end: at(4, 10) });
    fake.deleteEvent(ANA, removed!.id);

    // Act
    const second = await followRound(fake, token, first.deltaLink);
    const third = await followRound(fake, token, second.deltaLink);

    // Assert
    expect(first.items).toHaveLength(3);
    expect(edit.lastModifiedDateTime > edited!.lastModifiedDateTime).toBe(true);
    expect(edit['@odata.etag']).not.toBe(edited!['@odata.etag']);
    expect(second.items).toEqual([
      expect.objectContaining({ id: edited!.id, subject: 'Moved to the afternoon', start: { dateTime: '2026-03-02T15:00:00.0000000', timeZone: 'UTC' } }),
      { '@odata.type': '#microsoft.graph.event', id: removed!.id, '@removed': { reason: 'deleted' } },
      expect.objectContaining({ id: added.id, subject: 'New' }),
    ]);
    expect(second.items.some((item) => item.id === kept!.id)).toBe(false);
    expect(third.items).toEqual([]);
  });

  it('when an event is written in Pacific time, then Graph returns it in UTC unless Prefer: outlook.timezone asks for a zone', async () => {
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    fake.upsertEvent(ANA, {
      subject: 'West coast',
      start: { dateTime: '2026-03-02T08:00:00', timeZone: 'Pacific Standard Time' },
      end: { dateTime: '2026-03-02T09:00:00', timeZone: 'Pacific Standard Time' },
    });
    const first = `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`;

    const utc = await followRound(fake, token, first);
    const pacific = await followRound(fake, token, first, { prefer: 'outlook.timezone="Pacific Standard Time"' });

    expect(utc.items[0]).toMatchObject({ start: { dateTime: '2026-03-02T16:00:00.0000000', timeZone: 'UTC' }, originalStartTimeZone: 'Pacific Standard Time' });
    expect(pacific.items[0]).toMatchObject({ start: { dateTime: '2026-03-02T08:00:00.0000000', timeZone: 'Pacific Standard Time' } });
  });

  it('when the first call lacks the window, then 400 ErrorInvalidParameter; Prefer: odata.maxpagesize sets the page size', async () => {
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    for (const day of [1, 2, 3]) fake.upsertEvent(ANA, { start: at(day, 9), end: at(day, 10) });

    const noWindow = await call(`${fake.graphUrl}/users/${ANA}/calendarView/delta?startDateTime=2026-03-01T00:00:00Z`, { token });
    const onePerPage = await followRound(fake, token, `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`, { prefer: 'odata.maxpagesize=1' });
    const unknownUser = await call(`${fake.graphUrl}/users/nobody@contoso.example/calendarView/delta?${WINDOW}`, { token });

    expect(noWindow).toMatchObject({ status: 400, body: { error: { code: 'ErrorInvalidParameter' } } });
    expect(onePerPage.pages.map((page) => events(page).length)).toEqual([1, 1, 1]);
    expect(unknownUser).toMatchObject({ status: 404, body: { error: { code: 'ErrorInvalidUser' } } });
  });

  it('when the delta tokens are invalidated, then a stored deltaLink and a pending nextLink answer 410 Gone syncStateNotFound', async () => {
    const fake = await fakeMicrosoft({ pageSize: 1 });
    const token = await graphToken(fake);
    for (const day of [1, 2]) fake.upsertEvent(ANA, { start: at(day, 9), end: at(day, 10) });
    const round = await followRound(fake, token, `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`);
    const firstPage = await call(`${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`, { token });

    fake.invalidateDeltaTokens(ANA);
    const staleDelta = await call(round.deltaLink, { token });
    const staleNext = await call(String(firstPage.body['@odata.nextLink']), { token });
    const fresh = await call(`${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`, { token });

    for (const reply of [staleDelta, staleNext]) expect(reply).toMatchObject({ status: 410, body: { error: { code: 'syncStateNotFound' } } });
    expect(fresh.status).toBe(200);
  });

  it('when delta calls for one mailbox overlap, then maxConcurrentRequests counts them; over concurrencyLimit one gets 429 ApplicationThrottled', async () => {
    const fake = await fakeMicrosoft({ latencyMs: 150, concurrencyLimit: 3 });
    const token = await graphToken(fake);
    const url = `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`;

    const replies = await Promise.all([1, 2, 3, 4].map(() => call(url, { token })));

    expect(fake.maxConcurrentRequests(ANA)).toBe(4);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 429]);
    const throttled = replies.find((reply) => reply.status === 429);
    expect(throttled?.headers['retry-after']).toBe('1');
    expect(throttled?.body).toMatchObject({ error: { code: 'ApplicationThrottled' } });
  });

  it('when a delta failure is scripted with Retry-After, then that call answers it and the next one passes', async () => {
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    fake.fail('delta', 503, { headers: { 'retry-after': '2' } });
    const url = `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`;

    const failed = await call(url, { token });
    const passed = await call(url, { token });

    expect(failed).toMatchObject({ status: 503, body: { error: { code: 'ServiceUnavailable' } } });
    expect(failed.headers['retry-after']).toBe('2');
    expect(passed.status).toBe(200);
  });

  it('when delta answers are scripted, then every call of the mailbox gets the script’s page, behind the token check, until the script is removed', async () => {
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    const seen: string[] = [];
    fake.scriptDelta(
      ANA,
      (query, deltaUrl) => (seen.push(query.$skiptoken ?? 'first'), { value: [], '@odata.nextLink': `${deltaUrl}?$skiptoken=n${seen.length}` }),
    );
    const url = `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`;

    const first = await call(url, { token });
    const second = await call(String(first.body['@odata.nextLink']), { token });
    const unauthorised = await call(url);
    fake.scriptDelta(ANA, undefined);
    const real = await call(url, { token });

    expect(first.body).toMatchObject({ value: [], '@odata.nextLink': `${fake.graphUrl}/users/${ANA}/calendarView/delta?$skiptoken=n1` });
    expect(second.body['@odata.nextLink']).toMatch(/\$skiptoken=n2$/);
    expect(seen).toEqual(['first', 'n1']);
    expect(unauthorised.status).toBe(401);
    expect(real.body['@odata.deltaLink']).toMatch(/\$deltatoken=/);
  });
});

describe('fake Microsoft Graph: notifications to the bridge', () => {
  it('when a change is notified, then the bridge receives Graph’s documented body as application/json; charset=utf-8', async () => {
    // Arrange
    const fake = await fakeMicrosoft();
    const bridge = await receiver('echo');
    const created = await subscribe(fake, await graphToken(fake), `${bridge.url}/ms/notifications`);
    const subscriptionId = String(created.body.id);
    const event = fake.upsertEvent(ANA, { subject: 'Pricing review' });
    bridge.received.length = 0;

    // Act
    const delivery = await fake.notify(subscriptionId, 'updated', event.id);

    // Assert
    expect(delivery).toMatchObject({ status: 202, body: '' });
    expect(delivery.ms).toBeGreaterThanOrEqual(0);
    expect(bridge.received).toHaveLength(1);
    expect(bridge.received[0]?.contentType).toBe('application/json; charset=utf-8');
    const userId = fake.userIdOf(ANA);
    expect(JSON.parse(bridge.received[0]!.body)).toEqual({
      value: [
        {
          subscriptionId,
          subscriptionExpirationDateTime: created.body.expirationDateTime,
          changeType: 'updated',
          resource: `Users/${userId}/Events/${event.id}`,
          resourceData: {
            '@odata.type': '#Microsoft.Graph.Event',
            '@odata.id': `Users/${userId}/Events/${event.id}`,
            '@odata.etag': event['@odata.etag'],
            id: event.id,
          },
          clientState: 'state-secret',
          tenantId: TENANT,
        },
      ],
    });
  });

  it('when items of two subscriptions are batched, then one POST carries both; a forged clientState goes out as given', async () => {
    const fake = await fakeMicrosoft();
    const bridge = await receiver('echo');
    const token = await graphToken(fake);
    const first = String((await subscribe(fake, token, `${bridge.url}/n`)).body.id);
    const second = String((await subscribe(fake, token, `${bridge.url}/n`, { clientState: 'other-state' })).body.id);
    bridge.received.length = 0;

    await fake.notifyBatch([
      { subscriptionId: first, changeType: 'created', eventId: 'AAMkAD-one' },
      { subscriptionId: second, changeType: 'deleted', eventId: 'AAMkAD-two', clientState: 'forged' },
    ]);

    const body = JSON.parse(bridge.received[0]!.body) as { value: Json[] };
    expect(bridge.received).toHaveLength(1);
    expect(body.value.map((item) => [item.subscriptionId, item.changeType, item.clientState])).toEqual([
      [first, 'created', 'state-secret'],
      [second, 'deleted', 'forged'],
    ]);
  });

  it('when Graph sends subscriptionRemoved to the lifecycle URL, then the body is Graph’s and the subscription is gone (renew answers 404)', async () => {
    const fake = await fakeMicrosoft();
    const bridge = await receiver('echo');
    const token = await graphToken(fake);
    const created = await subscribe(fake, token, `${bridge.url}/n`, { lifecycleNotificationUrl: `${bridge.url}/lifecycle` });
    const id = String(created.body.id);
    bridge.received.length = 0;

    const delivery = await fake.lifecycle(id, 'subscriptionRemoved');
    const renew = await call(`${fake.graphUrl}/subscriptions/${id}`, { method: 'PATCH', token, body: { expirationDateTime: inMinutes(100) } });

    expect(delivery.status).toBe(202);
    expect(bridge.received[0]?.url).toBe('/lifecycle');
    expect(JSON.parse(bridge.received[0]!.body)).toEqual({
      value: [
        {
          subscriptionId: id,
          subscriptionExpirationDateTime: created.body.expirationDateTime,
          tenantId: TENANT,
          clientState: 'state-secret',
          lifecycleEvent: 'subscriptionRemoved',
        },
      ],
    });
    expect(fake.subscriptions.get(id)).toMatchObject({ deleted: true, removedBy: 'graph' });
    expect(renew.status).toBe(404);
  });
});
