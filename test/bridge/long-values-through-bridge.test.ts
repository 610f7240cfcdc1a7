import { expect, it } from 'vitest';

import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { startSalesforceBridge } from './support/salesforce-bridge.ts';
import { storedJobs } from './support/stored-jobs.ts';

/*
 * Values that index entries cannot hold as they are: a meeting key built from a 6 000-character
 * title is over PostgreSQL's btree limit (about 2.7 kB). Keys are bounded (a hash past 200
 * characters), so such a meeting maps and forwards on both engines instead of looping.
 */

const cleanups = cleanupAfterEach();

describeEachEngine('long values through startBridge', (engine) => {
  it('when a mapped Event title is 6 000 characters long, then the message is acked, Momentum receives the remap with the whole title and the stored meeting key is bounded', async () => {
    // Arrange
    const momentum = await startFakeMomentum();
    cleanups.push(momentum.close);
    const bridge = await startSalesforceBridge(momentum, { engine });
    cleanups.push(bridge.stop);
    const title = `Globex ${'quarterly business review '.repeat(240)}`.slice(0, 6_000);

    // Act
    const ack = await postOutboundMessage(
      bridge.url,
      outboundMessage({ notifications: [eventNotification(1, { Subject: title, WhatId: '0068d0000101XyZAAU' })] }),
    );
    const [remap] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    // Assert
    expect(ack.status).toBe(200);
    expect((remap?.body as { meetingDetails?: { title?: string } }).meetingDetails?.title).toBe(title);
    await expectSettled(bridge.databaseUrl);
    const jobs = await storedJobs(bridge.databaseUrl);
    expect(jobs.map((job) => `${job.kind}:${job.state}`)).toEqual(['map-event:succeeded', 'remap:succeeded']);
    expect(jobs[1]?.payload).toMatchObject({ request: { meetingDetails: { title } } });
    const keys = await queryRows(bridge.databaseUrl, 'SELECT coalesce_key FROM jobs WHERE kind = $1', ['remap']);
    expect(String(keys[0]?.coalesce_key).length).toBeLessThanOrEqual(200);
  });
});
