import { readFileSync } from 'node:fs';

import { afterEach, describe, expect, it } from 'vitest';

import { ACK_ENVELOPE } from '../../src/salesforce/soap-replies.ts';
import type { InboundEvent } from '../../src/store/types.ts';
import {
  eventNotification,
  notificationId,
  notifications,
  ORG_ID,
  otherPrefixesMessage,
  outboundMessage,
} from '../salesforce/support/outbound-message-builder.ts';
import { expectRefused, type Harness, startHarness, withFailingIngest } from '../salesforce/support/salesforce-route-harness.ts';
import { storedCounts, storedEventIds, storedJobs, storedRawPayloads } from '../support/stored-rows.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/salesforce/${name}`, import.meta.url), 'utf8');

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function storedEvents(h: Harness): Promise<InboundEvent[]> {
  const events = await Promise.all(storedEventIds(h.file).map((id) => h.store.getEvent(id)));
  return events.filter((event): event is InboundEvent => event !== undefined);
}

function expectAck(response: { status: number; headers: Record<string, string>; text: string }) {
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('text/xml; charset=utf-8');
  expect(response.text).toBe(ACK_ENVELOPE);
  // A framed reply with the security headers every route gets; no ETag on a POST's ack.
  expect(response.headers['content-length']).toBe(String(Buffer.byteLength(ACK_ENVELOPE)));
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers.etag).toBeUndefined();
}

describe('POST /salesforce/outbound-message', () => {
  it.each([
    ['event-opportunity.xml', 1],
    ['opportunity.xml', 1],
    ['task-leads-batch.xml', 3],
  ])('when %s arrives from the allowed org, then it is stored with one map-event job per notification and acked', async (name, count) => {
    harness = await startHarness();
    const xml = fixture(name);

    const response = await harness.post(xml);

    expectAck(response);
    expect(storedCounts(harness.file)).toEqual({ messages: 1, events: count, jobs: count });
    const events = await storedEvents(harness);
    expect(events.every((event) => event.source === 'salesforce' && event.senderId === ORG_ID && event.state === 'received')).toBe(true);
    expect(storedJobs(harness.file).map(({ kind, payload, eventId, state }) => ({ kind, payload, eventId, state }))).toEqual(
      events.map((event) => ({ kind: 'map-event', payload: { eventId: event.id }, eventId: event.id, state: 'pending' })),
    );
  });

  it('when event-opportunity.xml is stored, then the event carries the parsed notification and its dedupe key', async () => {
    harness = await startHarness();

    expectAck(await harness.post(fixture('event-opportunity.xml')));

    const [event] = await storedEvents(harness);
    expect(event?.dedupeKey).toBe('salesforce:04l8d0000101XyZAAU');
    expect(event?.parsedPayload).toEqual({
      version: 1,
      organizationId: ORG_ID,
      actionId: '04k8d0000001XyZAAU',
      notificationId: '04l8d0000101XyZAAU',
      sObjectType: 'Event',
      fields: {
        Id: '00U8d0000101XyZEAU',
        AccountId: '0018d0000101XyZAAU',
        EndDateTime: '2026-03-02T16:30:00.000Z',
        OwnerId: '0058d0000101XyZAAU',
        StartDateTime: '2026-03-02T16:00:00.000Z',
        Subject: 'Pricing review with Globex',
        WhatId: '0068d0000101XyZAAU',
        WhoId: '0038d0000101XyZAAU',
      },
    });
  });

  it('when a message is stored, then its one access line counts it and the payload is not logged', async () => {
    harness = await startHarness({ env: { LOG_LEVEL: 'info' } });

    expectAck(await harness.post(fixture('task-leads-batch.xml')));

    await harness.logs.waitForLine((line) => line.message === 'request' && line.route === '/salesforce/outbound-message');
    const lines = harness.logs.lines().filter((line) => line.route === '/salesforce/outbound-message');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', organizationId: ORG_ID, notifications: 3, new: 3, duplicates: 0 });
    expect(harness.logs.text()).not.toContain('Intro call');
  });

  it('when a message holds 100 notifications, then all 100 are stored with 100 jobs in one ack', async () => {
    harness = await startHarness();

    expectAck(await harness.post(outboundMessage({ notifications: notifications(100) })));

    expect(storedCounts(harness.file)).toEqual({ messages: 1, events: 100, jobs: 100 });
    const events = await storedEvents(harness);
    expect(new Set(events.map((event) => event.dedupeKey))).toEqual(new Set(Array.from({ length: 100 }, (_, i) => `salesforce:${notificationId(i + 1)}`)));
  });

  it('when sObjects are Event, Task, Opportunity and a custom object, then each is stored with its type', async () => {
    harness = await startHarness();
    const types = ['sf:Event', 'sf:Task', 'sf:Opportunity', 'sf:Foo__c'];

    expectAck(await harness.post(outboundMessage({ notifications: types.map((type, i) => ({ ...eventNotification(i + 1), type })) })));

    const stored = (await storedEvents(harness)).map((event) => (event.parsedPayload as { sObjectType: string }).sObjectType);
    expect(stored.sort()).toEqual(['Event', 'Foo__c', 'Opportunity', 'Task']);
  });

  it('when the sender uses other prefixes, a default namespace and 15-character ids, then the notifications are stored', async () => {
    harness = await startHarness();

    expectAck(await harness.post(otherPrefixesMessage(notificationId(7))));

    const payloads = (await storedEvents(harness)).map((event) => event.parsedPayload);
    expect(payloads).toEqual([
      expect.objectContaining({ notificationId: notificationId(7), sObjectType: 'Event', fields: { Id: '00U8d0000101XyZEAU', Subject: 'Default namespace' } }),
      expect.objectContaining({
        notificationId: notificationId(7).slice(0, 15),
        sObjectType: 'Task',
        fields: { Id: '00T8d0000111XyZ', Subject: 'ns1 prefix' },
      }),
    ]);
  });

  it('when text holds &amp; escapes and non-ASCII, then the stored fields and raw payload are exact', async () => {
    harness = await startHarness();
    const xml = outboundMessage({ notifications: [eventNotification(1, { Subject: 'R&D café <é> 日本' })] });

    expectAck(await harness.post(Buffer.from(xml, 'utf8')));

    const [event] = await storedEvents(harness);
    expect((event?.parsedPayload as { fields: Record<string, string> }).fields.Subject).toBe('R&D café <é> 日本');
    expect(storedRawPayloads(harness.file)).toEqual([xml]);
  });

  it('when the body starts with a UTF-8 byte-order mark, then the message is acked and stored', async () => {
    harness = await startHarness();
    const xml = outboundMessage({ notifications: [eventNotification(1)] });

    expectAck(await harness.post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml, 'utf8')])));

    expect(await storedEvents(harness)).toHaveLength(1);
  });

  it('when the record was deleted (no fields), then the notification is stored with empty fields', async () => {
    harness = await startHarness();

    expectAck(await harness.post(outboundMessage({ notifications: [{ id: notificationId(1), type: 'sf:Event', fields: {} }] })));

    const [event] = await storedEvents(harness);
    expect(event?.parsedPayload).toMatchObject({ sObjectType: 'Event', fields: {} });
    expect(storedCounts(harness.file).jobs).toBe(1);
  });

  it.each([
    ['the 15-character id is configured and the message has 18', '00D8d0000001XyZ', ORG_ID],
    ['the 18-character id is configured and the message has 15', ORG_ID, '00D8d0000001XyZ'],
    ['one of several configured ids matches', `00D000000000001,${ORG_ID}`, ORG_ID],
  ])('when %s, then the org is allowed', async (_name, configured, sent) => {
    harness = await startHarness({ env: { SALESFORCE_ORG_IDS: configured } });

    expectAck(await harness.post(outboundMessage({ orgId: sent, notifications: notifications(1) })));

    const [event] = await storedEvents(harness);
    expect(event?.senderId).toBe(sent);
  });

  it('when the same message is redelivered, then it is acked again and nothing new is stored or enqueued', async () => {
    harness = await startHarness();
    const xml = fixture('task-leads-batch.xml');
    expectAck(await harness.post(xml));
    const before = storedCounts(harness.file);

    const response = await harness.post(xml);

    expectAck(response);
    expect(storedCounts(harness.file)).toMatchObject({ events: before.events, jobs: before.jobs });
    await harness.logs.waitForLine((line) => line.message === 'request' && line.duplicates === 3);
    const lines = harness.logs.lines().filter((line) => line.message === 'request' && line.route === '/salesforce/outbound-message');
    expect(lines.at(-1)).toMatchObject({ notifications: 3, new: 0, duplicates: 3 });
  });

  it('when a redelivery overlaps with a new notification, then only the new one is stored and enqueued', async () => {
    harness = await startHarness();
    expectAck(await harness.post(outboundMessage({ notifications: [eventNotification(1), eventNotification(2)] })));

    expectAck(await harness.post(outboundMessage({ notifications: [eventNotification(2), eventNotification(3)] })));

    expect(storedCounts(harness.file)).toMatchObject({ events: 3, jobs: 3 });
    expect((await storedEvents(harness)).map((event) => event.dedupeKey)).toEqual([1, 2, 3].map((n) => `salesforce:${notificationId(n)}`));
  });

  it('when the store fails on write, then the answer is a 500 Server fault with no ack, and the retry is then stored once', async () => {
    let failing = true;
    harness = await startHarness({ wrap: (store) => withFailingIngest(store, () => failing) });
    const xml = fixture('task-leads-batch.xml');

    const refused = await harness.post(xml);

    await expectRefused(harness, refused, {
      status: 500,
      faultcode: 'soapenv:Server',
      faultstring: 'the message could not be stored; it will be accepted on a retry',
    });
    expect(refused.text).not.toContain('disk I/O error');
    expect(harness.logs.lines().some((line) => line.level === 'error' && line.message === 'salesforce message failed')).toBe(true);

    failing = false;
    expectAck(await harness.post(xml));
    expectAck(await harness.post(xml));

    expect(storedCounts(harness.file)).toMatchObject({ events: 3, jobs: 3 });
  });
});
