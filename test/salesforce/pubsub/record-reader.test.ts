import { describe, expect, it } from 'vitest';

import { builtInRules } from '../../../src/mapping/default-rules.ts';
import { createSalesforceApi } from '../../../src/salesforce/jsforce-connection.ts';
import { createRecordReader, fieldsToRead } from '../../../src/salesforce/pubsub/record-reader.ts';
import { A, bridgeOrg, C, O, U } from '../../fakes/fake-salesforce-org-fixture.ts';
import { CLIENT_ID, CLIENT_SECRET, orgsClosedAfterEach } from '../../fakes/fake-salesforce-org-support.ts';

/*
 * What a Change Data Capture event cannot say itself is read through REST (docs/protocols.md,
 * Pub/Sub): the fields the mapping file and re-matching read, by one SOQL query per object,
 * against the fake org answering real SOQL.
 */

const startOrg = orgsClosedAfterEach();
const RULES = builtInRules({ triggerSummary: false, triggerAiSignals: false });
const EVENT = '00U8d0000101XyZEAZ';

describe('reading records a CDC event names', () => {
  it('reads of an Event the fields its rule reads, Id and SystemModstamp; of an Opportunity what re-matching reads', () => {
    expect(fieldsToRead(RULES, 'Event').sort()).toEqual(['AccountId', 'Id', 'OwnerId', 'StartDateTime', 'Subject', 'SystemModstamp', 'WhatId', 'WhoId']);
    expect(fieldsToRead(RULES, 'Contact').sort()).toEqual(['AccountId', 'Email', 'Id', 'SystemModstamp']);
  });

  it('when records are read, then each found one comes back by its 15-character id with its fields as text and its nulls absent; unknown ids are not there', async () => {
    // Arrange: an Event in the org, next to its Opportunity and Contact.
    const org = bridgeOrg();
    org.Event = [
      {
        Id: EVENT,
        Subject: 'Pricing review',
        StartDateTime: '2026-12-01T15:00:00.000+0000',
        WhatId: O.open,
        WhoId: C.ann,
        AccountId: A.globex,
        OwnerId: U.olivia,
        SystemModstamp: '2026-11-27T10:00:00.000+0000',
      },
    ];
    const fake = await startOrg(org);
    const api = createSalesforceApi({
      auth: { flow: 'client-credentials', loginUrl: fake.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      apiVersion: '62.0',
    });
    const reader = createRecordReader(api, () => RULES);

    // Act
    const events = await reader.read('Event', [EVENT, '00U8d0000199XyZEAZ']);
    const contacts = await reader.read('Contact', [C.dora]);

    // Assert
    expect(events).toEqual(
      new Map([
        [
          EVENT.slice(0, 15),
          {
            Id: EVENT,
            Subject: 'Pricing review',
            StartDateTime: '2026-12-01T15:00:00.000+0000',
            WhatId: O.open,
            WhoId: C.ann,
            AccountId: A.globex,
            OwnerId: U.olivia,
            SystemModstamp: '2026-11-27T10:00:00.000+0000',
          },
        ],
      ]),
    );
    expect(contacts.get(C.dora.slice(0, 15))).toEqual({ Id: C.dora, Email: 'dora@globex.test' });
    expect(fake.queries()).toHaveLength(2);
    expect(fake.callOptions()).toEqual([`client=${CLIENT_ID}`, `client=${CLIENT_ID}`]);
  });

  it('when a bulk load stamped more records with one second than a page holds, then a SystemModstamp read pages through that second by Id: every record once, oldest first', async () => {
    // Arrange: 4 500 Contacts saved in one second, one before it and one after it.
    const org = bridgeOrg();
    const contactId = (n: number) => `003B${String(n).padStart(11, '0')}AAA`;
    const stamped = (n: number, stamp: string) => ({ Id: contactId(n), Email: `c${n}@bulk.test`, AccountId: null, SystemModstamp: stamp });
    org.Contact = [
      stamped(1, '2026-11-27T09:59:59.000+0000'),
      ...Array.from({ length: 4_500 }, (_, index) => stamped(4_500 - index + 1, '2026-11-27T10:00:00.000+0000')),
      stamped(9_000, '2026-11-27T10:00:01.000+0000'),
      stamped(0, '2026-11-27T09:00:00.000+0000'),
    ];
    const fake = await startOrg(org);
    const api = createSalesforceApi({
      auth: { flow: 'client-credentials', loginUrl: fake.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      apiVersion: '62.0',
    });
    const reader = createRecordReader(api, () => RULES);
    const pages: string[][] = [];

    // Act
    const read = await reader.changedSince('Contact', Date.parse('2026-11-27T09:30:00Z'), async (page) => void pages.push(page.map((record) => record.Id!)));

    // Assert: 4 502 records, none twice, in (SystemModstamp, Id) order, in pages of at most 2 000.
    const ids = pages.flat();
    expect(read).toBe(4_502);
    expect(new Set(ids).size).toBe(4_502);
    expect(ids).toEqual([contactId(1), ...Array.from({ length: 4_500 }, (_, index) => contactId(index + 2)), contactId(9_000)]);
    expect(pages.map((page) => page.length)).toEqual([2_000, 2_000, 502]);
  });
});
