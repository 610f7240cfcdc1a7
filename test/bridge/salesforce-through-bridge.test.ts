import { readFileSync } from 'node:fs';

import { expect, it } from 'vitest';

import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { type FakeSalesforce, startFakeSalesforce } from '../fakes/fake-salesforce.ts';
import { eventNotification, notificationId, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { ADMIN_KEY, MOMENTUM_KEY, startSalesforceBridge } from './support/salesforce-bridge.ts';
import { holdsUnstorable, jobStates, searchDeliveries, storedJobs, storedTexts } from './support/stored-jobs.ts';

/*
 * Outbound Messages end to end through the real startBridge wiring, on each engine: a sample
 * message in over HTTP, the remap out at a fake Momentum, the owner's email looked up with jsforce
 * at a fake Salesforce, and the rows the bridge left behind.
 */

const OWNER = '0058d0000101XyZAAU';
const SALESFORCE_APP = { clientId: 'bridge-app', clientSecret: 'right-secret' };
const fixture = (name: string) => readFileSync(new URL(`../fixtures/salesforce/${name}`, import.meta.url), 'utf8');

const cleanups = cleanupAfterEach();

async function momentumFake(): Promise<FakeMomentum> {
  const momentum = await startFakeMomentum();
  cleanups.push(momentum.close);
  return momentum;
}

async function salesforceWithUsers(users: Record<string, string>): Promise<FakeSalesforce> {
  const salesforce = await startFakeSalesforce({ ...SALESFORCE_APP, users });
  cleanups.push(salesforce.close);
  return salesforce;
}

const lookupsAt = (salesforce: FakeSalesforce) => ({
  SALESFORCE_LOGIN_URL: salesforce.url,
  SALESFORCE_CLIENT_ID: SALESFORCE_APP.clientId,
  SALESFORCE_CLIENT_SECRET: SALESFORCE_APP.clientSecret,
});

describeEachEngine('Salesforce Outbound Messages through startBridge', (engine) => {
  it('when the sample Event message arrives, then Momentum receives the documented remap with the owner email, the flag and the API key, and the stored jobs all succeeded', async () => {
    // Arrange
    const momentum = await momentumFake();
    const salesforce = await salesforceWithUsers({ [OWNER]: 'ana.rep@example.com' });
    const bridge = await startSalesforceBridge(momentum, { engine, env: { REMAP_TRIGGER_SUMMARY: 'true', ...lookupsAt(salesforce) } });
    cleanups.push(bridge.stop);

    // Act
    const ack = await postOutboundMessage(bridge.url, fixture('event-opportunity.xml'));
    const [remap] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    // Assert: the reply and what reached Momentum…
    expect(ack.status).toBe(200);
    expect(await ack.text()).toContain('<Ack>true</Ack>');
    expect(remap?.path).toBe('/v1/meeting/remap');
    expect(remap?.query).toEqual({ triggerSummary: 'true' });
    expect(remap?.headers['x-api-key']).toBe(MOMENTUM_KEY);
    const sent = {
      salesforceRecords: { opportunityId: '0068d0000101XyZAAU', accountId: '0018d0000101XyZAAU' },
      meetingDetails: { title: 'Pricing review with Globex', startTime: '2026-03-02T16:00:00.000Z', hostEmail: 'ana.rep@example.com' },
    };
    expect(remap?.body).toEqual(sent);
    // …and the stored state: one message, its event mapped, the mapping and the delivery succeeded at the first attempt.
    expect(await queryRows(bridge.databaseUrl, 'SELECT source, state FROM inbound_events')).toEqual([{ source: 'salesforce', state: 'mapped' }]);
    await expectSettled(bridge.databaseUrl);
    const jobs = await storedJobs(bridge.databaseUrl);
    expect(jobs.map((job) => `${job.kind}:${job.state}`)).toEqual(['map-event:succeeded', 'remap:succeeded']);
    expect(jobs[1]?.payload).toMatchObject({ request: sent });
    expect(salesforce.queries()).toHaveLength(1);
  });

  it('when a newer change of an Event arrives while its older remap is still pending, then only the newest is sent and the older is stored superseded', async () => {
    // Arrange: one worker slot, held by a slow remap of another meeting while the two changes arrive.
    const momentum = await momentumFake();
    const release = Promise.withResolvers<void>();
    momentum.queue(replies.held(release.promise));
    const bridge = await startSalesforceBridge(momentum, { engine, env: { WORKER_CONCURRENCY: '1' } });
    cleanups.push(bridge.stop);
    const sameEvent = { Id: '00U8d0000777XyZEAU', Subject: 'Globex QBR', StartDateTime: '2026-04-01T15:00:00.000Z' };

    // Act
    await postOutboundMessage(bridge.url, outboundMessage({ notifications: [eventNotification(1, { WhatId: '0068d0000101XyZAAU' })] }));
    await momentum.waitFor(1);
    const older = await postOutboundMessage(
      bridge.url,
      outboundMessage({ notifications: [{ ...eventNotification(2), fields: { ...sameEvent, WhatId: '0018d0000101XyZAAU' } }] }),
    );
    const newer = await postOutboundMessage(
      bridge.url,
      outboundMessage({ notifications: [{ ...eventNotification(3), fields: { ...sameEvent, WhatId: '0068d0000202XyZAAU' } }] }),
    );
    // Both changes are stored before the slot frees, however slow the machine.
    release.resolve();
    const received = await momentum.waitFor(2);
    await waitSettled(bridge.databaseUrl);
    // Give a wrongly kept older remap every chance to show up before looking.
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Assert
    expect([older.status, newer.status]).toEqual([200, 200]);
    expect(received[1]?.body).toMatchObject({ salesforceRecords: { opportunityId: '0068d0000202XyZAAU' }, meetingDetails: { title: 'Globex QBR' } });
    expect(
      momentum.requests.filter((request) => (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title === 'Globex QBR'),
    ).toHaveLength(1);
    await expectSettled(bridge.databaseUrl);
    const remaps = (await storedJobs(bridge.databaseUrl)).filter((job) => job.kind === 'remap');
    expect(remaps.map((job) => job.state)).toEqual(['succeeded', 'superseded', 'succeeded']);
    expect(remaps[1]?.payload).toMatchObject({ request: { salesforceRecords: { accountId: '0018d0000101XyZAAU' } } });
  });

  it('when the owner lookup answers an email holding U+0000, then the remap is sent with the email made storable, nothing stored holds it and the deliveries search answers 200', async () => {
    // Arrange: Salesforce keeps whatever an integration wrote into User.Email.
    const momentum = await momentumFake();
    const salesforce = await salesforceWithUsers({ [OWNER]: 'ana.rep@exam\u0000ple.com' });
    const bridge = await startSalesforceBridge(momentum, { engine, env: lookupsAt(salesforce) });
    cleanups.push(bridge.stop);

    // Act
    const ack = await postOutboundMessage(
      bridge.url,
      outboundMessage({ notifications: [eventNotification(4, { OwnerId: OWNER, Subject: 'Globex renewal', WhatId: '0068d0000101XyZAAU' })] }),
    );
    const [remap] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);
    const search = await searchDeliveries(bridge.url, ADMIN_KEY, 'renewal');

    // Assert
    expect(ack.status).toBe(200);
    expect(remap?.body).toMatchObject({ meetingDetails: { title: 'Globex renewal', hostEmail: 'ana.rep@example.com' } });
    expect(await jobStates(bridge.databaseUrl)).toEqual(['map-event:succeeded', 'remap:succeeded']);
    await expectSettled(bridge.databaseUrl);
    expect((await storedTexts(bridge.databaseUrl)).filter((text) => holdsUnstorable(text))).toEqual([]);
    const [event] = await queryRows(bridge.databaseUrl, 'SELECT dedupe_key FROM inbound_events');
    expect(event).toEqual({ dedupe_key: `salesforce:${notificationId(4)}` });
    expect(search).toEqual({ status: 200, ids: [(await storedJobs(bridge.databaseUrl))[1]!.id] });
  });
});
