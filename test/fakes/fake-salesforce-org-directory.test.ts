import { generateKeyPairSync } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { createSalesforceApi } from '../../src/salesforce/jsforce-connection.ts';
import { createJsforceCrmDirectory } from '../../src/salesforce/jsforce-crm-directory.ts';
import { createJsforceDirectory } from '../../src/salesforce/jsforce-directory.ts';
import { captureLogs } from '../support/log-capture.ts';
import { A, bridgeOrg, C, L, O, U } from './fake-salesforce-org-fixture.ts';
import { CLIENT_ID, CLIENT_SECRET, orgsClosedAfterEach } from './fake-salesforce-org-support.ts';

/*
 * End to end: the bridge's real jsforce directories (client credentials and JWT bearer) against the
 * fake org, so the SOQL they send today is evaluated, not pattern-matched, and their reading of
 * Salesforce's answer shape is checked against it.
 */

const startOrg = orgsClosedAfterEach();
/** In a fixed order, whatever order the directory groups them in. */
const sortedBy = <T>(items: T[], key: (item: T) => string) => [...items].sort((a, b) => key(a).localeCompare(key(b)));

async function attendeeDirectory() {
  const fake = await startOrg(bridgeOrg());
  const api = createSalesforceApi({
    auth: { flow: 'client-credentials', loginUrl: fake.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    apiVersion: '62.0',
  });
  return { fake, directory: createJsforceCrmDirectory({ api, logger: captureLogs().logger, cacheTtlMs: 600_000 }) };
}

describe('fake Salesforce org: the jsforce directories end to end', () => {
  it('when the attendee directory looks up contacts and leads, then it gets the org’s unconverted matches, emails lower-cased', async () => {
    const { fake, directory } = await attendeeDirectory();

    const contacts = await directory.contactsByEmail(['ann@globex.test', 'dora@globex.test', 'nobody@globex.test']);
    const leads = await directory.leadsByEmail(['lena@hooli.test', 'ann@globex.test', 'mo@hooli.test']);

    expect(sortedBy(contacts, (match) => match.id)).toEqual([
      { id: C.ann, email: 'ann@globex.test', accountId: A.globex, accountType: 'Customer', accountWebsite: 'https://www.globex.test' },
      { id: C.dora, email: 'dora@globex.test', accountId: null, accountType: null, accountWebsite: null },
    ]);
    expect(sortedBy(leads, (match) => match.id)).toEqual([
      { id: L.lena, email: 'lena@hooli.test' },
      { id: L.mo, email: 'mo@hooli.test' },
    ]);
    expect(fake.queries()).toHaveLength(2);
  });

  it('when the directory looks up accounts by domain, then contact domains count contacts, websites match by host only, and each domain is answered on its own', async () => {
    const { fake, directory } = await attendeeDirectory();

    const found = await directory.accountsByDomain(['globex.test', 'initech.test']);

    expect(sortedBy(found, (match) => `${match.accountId}|${match.via}`)).toEqual([
      { accountId: A.globex, domain: 'globex.test', via: 'contact_domain', host: 'exact', contacts: 2, accountType: 'Customer' },
      { accountId: A.globex, domain: 'globex.test', via: 'website', host: 'exact', contacts: 0, accountType: 'Customer' },
      { accountId: A.initech, domain: 'initech.test', via: 'contact_domain', host: 'exact', contacts: 1, accountType: 'Partner' },
      { accountId: A.initech, domain: 'initech.test', via: 'website', host: 'exact', contacts: 0, accountType: 'Partner' },
    ]);
    // notglobex.test is found by LIKE '%globex.test%' and dropped: a domain matches a host, never a substring.
    expect(found.map((match) => match.accountId)).not.toContain(A.notGlobex);
    expect(
      fake
        .queries()
        .map((soql) => soql.split(' WHERE ')[0])
        .sort(),
    ).toEqual(['SELECT AccountId, Account.Type, Email FROM Contact', 'SELECT Id, Website, Type FROM Account']);
  });

  it('when the attendee directory asks for opportunities, then open ones and those closed within a year come with owner and contact role emails', async () => {
    const { fake, directory } = await attendeeDirectory();

    const candidates = await directory.opportunitiesOf([A.globex, A.initech]);

    const common = { accountType: null, teamEmails: [] };
    expect(sortedBy(candidates, (candidate) => candidate.id)).toEqual([
      {
        ...common,
        id: O.open,
        name: 'Globex renewal',
        accountId: A.globex,
        accountType: 'Customer',
        isClosed: false,
        isWon: false,
        stageName: 'Negotiation',
        closeDate: '2026-06-30',
        createdDate: '2026-02-25T09:00:00.000+0000',
        lastModifiedDate: '2026-02-25T09:00:00.000+0000',
        ownerEmail: 'olivia@seller.test',
        contactRoles: [
          { email: 'ann@globex.test', isPrimary: true, role: 'Decision Maker' },
          { email: 'carl@initech.test', isPrimary: false, role: 'Influencer' },
        ],
      },
      {
        ...common,
        id: O.closedLastYear,
        name: 'Globex pilot',
        accountId: A.globex,
        accountType: 'Customer',
        isClosed: true,
        isWon: true,
        stageName: 'Closed Won',
        closeDate: '2025-06-01',
        createdDate: '2025-06-01T09:00:00.000+0000',
        lastModifiedDate: '2025-06-01T09:00:00.000+0000',
        ownerEmail: 'pete@seller.test',
        contactRoles: [{ email: 'bob@globex.test', isPrimary: true, role: null }],
      },
      {
        ...common,
        id: O.initech,
        name: 'Initech upsell',
        accountId: A.initech,
        accountType: 'Partner',
        isClosed: false,
        isWon: false,
        stageName: 'Prospecting',
        closeDate: '2026-04-15',
        createdDate: '2026-03-01T09:00:00.000+0000',
        lastModifiedDate: '2026-03-01T09:00:00.000+0000',
        ownerEmail: null,
        contactRoles: [],
      },
    ]);
    expect(fake.queries()).toHaveLength(1);
  });

  it('when the session expires between lookups, then jsforce authenticates again, repeats the query and still gets the records', async () => {
    const { fake, directory } = await attendeeDirectory();
    await directory.leadsByEmail(['lena@hooli.test']);
    fake.failNextQueries(1, 401);

    const contacts = await directory.contactsByEmail(['bob@globex.test']);

    expect(contacts).toEqual([
      { id: C.bob, email: 'bob@globex.test', accountId: A.globex, accountType: 'Customer', accountWebsite: 'https://www.globex.test' },
    ]);
    expect(fake.queries()).toHaveLength(3);
    expect(fake.queries()[1]).toBe(fake.queries()[2]);
  });

  it('when the owner directory authenticates with a JWT bearer assertion, then the Users’ emails come back by id', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const fake = await startOrg(bridgeOrg(), { username: 'bridge@seller.test', publicKey });
    const api = createSalesforceApi({
      auth: { flow: 'jwt-bearer', loginUrl: fake.url, clientId: CLIENT_ID, username: 'bridge@seller.test', privateKey },
      apiVersion: '62.0',
    });
    const directory = createJsforceDirectory({ api, logger: captureLogs().logger, cacheTtlMs: 600_000 });

    const emails = await directory.ownerEmails([U.olivia, U.pete, U.noEmail]);

    expect(emails).toEqual(
      new Map([
        [U.olivia, 'olivia@seller.test'],
        [U.pete, 'Pete@Seller.test'],
      ]),
    );
    expect(fake.queries()).toEqual([`SELECT Id, Email FROM User WHERE Id IN ('${U.olivia}','${U.pete}','${U.noEmail}')`]);
  });
});
