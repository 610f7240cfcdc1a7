import { expect, it } from 'vitest';

import { startSalesforceBridge } from '../bridge/support/salesforce-bridge.ts';
import { sfId } from '../calendar/support/directory-setup.ts';
import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';

/*
 * An operator's pin through the whole bridge on both engines: it wins over a Salesforce Event's own
 * WhatId, and keeps winning when the next Outbound Message of the same Event names another record,
 * each run's match record saying who pinned and why.
 */

const cleanups = cleanupAfterEach();
const EVENT_ID = '00U8d0000777XyZEAU';
const PINNED = sfId('006', 77);

const post = (url: string, xml: string) =>
  fetch(`${url}/salesforce/outbound-message`, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' }, body: xml });

const change = (n: number, whatId: string, stamp: string, subject: string) =>
  outboundMessage({
    notifications: [
      {
        ...eventNotification(n),
        fields: { Id: EVENT_ID, Subject: subject, StartDateTime: '2026-04-01T15:00:00.000Z', WhatId: whatId, SystemModstamp: stamp },
      },
    ],
  });

describeEachEngine('an operator’s pin through startBridge', (engine) => {
  it('when a meeting is pinned, then its next Outbound Messages are remapped to the pinned record whatever WhatId says, and each run records the pin', async () => {
    const momentum = await startFakeMomentum();
    cleanups.push(momentum.close);
    const bridge = await startSalesforceBridge(momentum, { engine });
    cleanups.push(bridge.stop);
    await (
      await bridge.store()
    ).matches.setPin({
      meetingKey: `salesforce:Event:${EVENT_ID.slice(0, 15)}`,
      records: { opportunityId: PINNED },
      pinnedBy: 'ops@example.com',
      reason: 'the QBR belongs to the renewal',
      pinnedAt: Date.parse('2026-03-30T09:00:00Z'),
    });

    expect((await post(bridge.url, change(1, '0068d0000101XyZAAU', '2026-03-31T10:00:00.000Z', 'Globex QBR'))).status).toBe(200);
    await momentum.waitFor(1, 15_000);
    // The rep moves the Event to another opportunity and renames it: the rename is sent, the pin still decides the record.
    expect((await post(bridge.url, change(2, '0068d0000202XyZAAU', '2026-03-31T11:00:00.000Z', 'Globex QBR (moved)'))).status).toBe(200);

    const [first, second] = await momentum.waitFor(2, 15_000);
    for (const remap of [first, second]) expect(remap?.body).toMatchObject({ salesforceRecords: { opportunityId: PINNED } });
    await waitSettled(bridge.databaseUrl);
    const records = await queryRows(bridge.databaseUrl, 'SELECT outcome, rule, summary FROM match_records ORDER BY id');
    expect(records).toEqual(Array(2).fill({ outcome: 'pinned', rule: 'pinned', summary: 'Pinned by ops@example.com: the QBR belongs to the renewal' }));
    await expectSettled(bridge.databaseUrl);
  });
});
