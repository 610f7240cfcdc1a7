import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { startFakeSalesforce } from '../fakes/fake-salesforce.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { MOMENTUM_KEY, startSalesforceBridge } from './support/salesforce-bridge.ts';

/*
 * Issue 4 end to end through the real startBridge wiring: a sample Outbound Message in over HTTP,
 * the remap out at a fake Momentum, the owner's email looked up with jsforce at a fake Salesforce.
 */

const OWNER = '0058d0000101XyZAAU';
const fixture = (name: string) => readFileSync(new URL(`../fixtures/salesforce/${name}`, import.meta.url), 'utf8');

const cleanups = cleanupAfterEach();

async function momentumFake(): Promise<FakeMomentum> {
  const momentum = await startFakeMomentum();
  cleanups.push(momentum.close);
  return momentum;
}

describe('Salesforce Outbound Messages through startBridge', () => {
  it('when the sample Event message arrives, then Momentum receives the documented remap with the owner email, the flag and the API key', async () => {
    // Arrange
    const momentum = await momentumFake();
    const salesforce = await startFakeSalesforce({ clientId: 'bridge-app', clientSecret: 'right-secret', users: { [OWNER]: 'ana.rep@example.com' } });
    cleanups.push(salesforce.close);
    const bridge = await startSalesforceBridge(momentum, {
      env: {
        REMAP_TRIGGER_SUMMARY: 'true',
        SALESFORCE_LOGIN_URL: salesforce.url,
        SALESFORCE_CLIENT_ID: 'bridge-app',
        SALESFORCE_CLIENT_SECRET: 'right-secret',
      },
    });
    cleanups.push(bridge.stop);

    // Act
    const ack = await postOutboundMessage(bridge.url, fixture('event-opportunity.xml'));
    const [remap] = await momentum.waitFor(1);

    // Assert
    expect(ack.status).toBe(200);
    expect(await ack.text()).toContain('<Ack>true</Ack>');
    expect(remap?.path).toBe('/v1/meeting/remap');
    expect(remap?.query).toEqual({ triggerSummary: 'true' });
    expect(remap?.headers['x-api-key']).toBe(MOMENTUM_KEY);
    expect(remap?.body).toEqual({
      salesforceRecords: { opportunityId: '0068d0000101XyZAAU', accountId: '0018d0000101XyZAAU' },
      meetingDetails: { title: 'Pricing review with Globex', startTime: '2026-03-02T16:00:00.000Z', hostEmail: 'ana.rep@example.com' },
    });
  });

  it('when a newer change of an Event arrives while its older remap is still pending, then only the newest is sent', async () => {
    // Arrange: one worker slot, held by a slow remap of another meeting while the two changes arrive.
    const momentum = await momentumFake();
    momentum.queue(replies.delayed(3_000));
    const bridge = await startSalesforceBridge(momentum, {
      env: {
        WORKER_CONCURRENCY: '1',
      },
    });
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
    const received = await momentum.waitFor(2);
    // Give a wrongly kept older remap every chance to show up before looking.
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Assert
    expect([older.status, newer.status]).toEqual([200, 200]);
    expect(received[1]?.body).toMatchObject({ salesforceRecords: { opportunityId: '0068d0000202XyZAAU' }, meetingDetails: { title: 'Globex QBR' } });
    expect(
      momentum.requests.filter((request) => (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title === 'Globex QBR'),
    ).toHaveLength(1);
  });
});
