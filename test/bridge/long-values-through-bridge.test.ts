import { describe, expect, it } from 'vitest';

import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { TEST_DATABASE_URL, testDatabase } from '../support/real-store.ts';
import { startSalesforceBridge } from './support/salesforce-bridge.ts';

/*
 * Values that index entries cannot hold as they are: a meeting key built from a 6 000-character
 * title is over PostgreSQL's btree limit (about 2.7 kB). Keys are bounded (a hash past 200
 * characters), so such a meeting maps and forwards on both engines instead of looping.
 */

const cleanups = cleanupAfterEach();

const engines = [['SQLite', 'sqlite'], ...(TEST_DATABASE_URL ? [['PostgreSQL', 'postgres'] as const] : [])] as const;

describe.each(engines)('long values through startBridge (%s)', (_name, engine) => {
  it('when a mapped Event title is 6 000 characters long, then the message is acked and Momentum receives the remap with the whole title', async () => {
    const momentum = await startFakeMomentum();
    cleanups.push(momentum.close);
    const database = testDatabase(engine, 'bridge_long');
    cleanups.push(database.drop);
    const bridge = await startSalesforceBridge(momentum, { database });
    cleanups.push(bridge.stop);
    const title = `Globex ${'quarterly business review '.repeat(240)}`.slice(0, 6_000);

    const ack = await postOutboundMessage(
      bridge.url,
      outboundMessage({ notifications: [eventNotification(1, { Subject: title, WhatId: '0068d0000101XyZAAU' })] }),
    );
    const [remap] = await momentum.waitFor(1);

    expect(ack.status).toBe(200);
    expect((remap?.body as { meetingDetails?: { title?: string } }).meetingDetails?.title).toBe(title);
  });
});
