import { describe, expect, it } from 'vitest';

import { createJsforceCrmChanges, parsePosition, positionText } from '../../src/salesforce/crm-changes.ts';
import { createSalesforceApi } from '../../src/salesforce/jsforce-connection.ts';
import { bridgeOrg } from '../fakes/fake-salesforce-org-fixture.ts';
import { CLIENT_ID, CLIENT_SECRET, orgsClosedAfterEach } from '../fakes/fake-salesforce-org-support.ts';
import { captureLogs } from '../support/log-capture.ts';

/*
 * What the re-match sweep reads of Salesforce (docs/calendars.md, re-matching): records changed
 * after its stored position, in (SystemModstamp, Id) order, against the fake org answering real SOQL.
 */

const startOrg = orgsClosedAfterEach();
const oppId = (n: number) => `006B${String(n).padStart(11, '0')}AAA`;

describe('the re-match sweep reading what changed', () => {
  it('when a bulk update stamped more opportunities with one second than a sweep page holds, then page after page resumes inside that second: every one read once', async () => {
    // Arrange: 450 opportunities saved in one second, after one saved earlier.
    const org = bridgeOrg();
    const stamp = '2026-11-27T10:00:00.000+0000';
    org.Opportunity = [
      { Id: oppId(0), AccountId: null, SystemModstamp: '2026-11-27T09:00:00.000+0000' },
      ...Array.from({ length: 450 }, (_, index) => ({ Id: oppId(450 - index), AccountId: null, SystemModstamp: stamp })),
    ];
    const fake = await startOrg(org);
    const api = createSalesforceApi({
      auth: { flow: 'client-credentials', loginUrl: fake.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      apiVersion: '62.0',
    });
    const changes = createJsforceCrmChanges(api, captureLogs().logger);

    // Act: sweeps of 200 from 09:30, each from the position the previous one ended at.
    const read: string[] = [];
    let position = '2026-11-27T09:30:00.000Z';
    for (let sweep = 0; sweep < 5; sweep += 1) {
      const page = await changes.changedSince('Opportunity', position, 200);
      const last = page.at(-1);
      if (last === undefined) break;
      read.push(...page.map((record) => record.fields.Id!));
      position = positionText({ modstamp: new Date(Date.parse(last.systemModstamp)).toISOString(), afterId: last.fields.Id! });
    }

    // Assert
    expect(read).toEqual(Array.from({ length: 450 }, (_, index) => oppId(index + 1)));
    expect(parsePosition(position)).toEqual({ modstamp: '2026-11-27T10:00:00.000Z', afterId: oppId(450) });
  });

  it('when the stored position is an instant alone (as sweeps stored before), then the read starts after it', async () => {
    const org = bridgeOrg();
    org.Opportunity = [
      { Id: oppId(1), AccountId: null, SystemModstamp: '2026-11-27T10:00:00.000+0000' },
      { Id: oppId(2), AccountId: null, SystemModstamp: '2026-11-27T10:00:01.000+0000' },
    ];
    const fake = await startOrg(org);
    const api = createSalesforceApi({
      auth: { flow: 'client-credentials', loginUrl: fake.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      apiVersion: '62.0',
    });

    const page = await createJsforceCrmChanges(api, captureLogs().logger).changedSince('Opportunity', '2026-11-27T10:00:00.000Z', 200);

    expect(page.map((record) => record.fields.Id)).toEqual([oppId(2)]);
  });

  it('when a stored position is not an instant and an id, then the read is refused before any query', async () => {
    const changes = createJsforceCrmChanges({ get: async () => ({ records: [] }) } as never, captureLogs().logger);

    await expect(changes.changedSince('Opportunity', "2026-11-27T10:00:00.000Z ' OR Id != '", 200)).rejects.toThrow('is not a position');
  });
});
