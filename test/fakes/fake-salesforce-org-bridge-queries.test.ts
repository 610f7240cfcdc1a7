import { describe, expect, it } from 'vitest';

import { normalizeSalesforceId } from '../../src/mapping/salesforce-ids.ts';
import { A, bridgeOrg, C, L, O, R, U } from './fake-salesforce-org-fixture.ts';
import { ids, orgsClosedAfterEach, query, records } from './fake-salesforce-org-support.ts';

/*
 * The exact SOQL the bridge sends today (src/salesforce/jsforce-directory.ts and
 * jsforce-attendee-directory.ts), evaluated over a small org whose records each test one condition.
 */

const startOrg = orgsClosedAfterEach();
const unknownUser = '0058d0000199XyZAAU';
const url = (type: string, id: string) => ({ type, url: `/services/data/v62.0/sobjects/${type}/${id}` });

describe('fake Salesforce org: the queries the bridge sends', () => {
  it('when the owners are asked for by id, then the Users found answer with their emails, unknown ids leave nothing', async () => {
    const fake = await startOrg(bridgeOrg());

    const reply = await query(fake, `SELECT Id, Email FROM User WHERE Id IN ('${U.olivia}','${U.noEmail}','${unknownUser}')`);

    expect(reply).toEqual({
      status: 200,
      body: {
        totalSize: 2,
        done: true,
        records: [
          { attributes: url('User', U.olivia), Id: U.olivia, Email: 'olivia@seller.test' },
          { attributes: url('User', U.noEmail), Id: U.noEmail, Email: null },
        ],
      },
    });
  });

  it('when an id comes with 15 characters, then it finds the record on its first 15 characters, case-sensitively', async () => {
    const upper = normalizeSalesforceId('0058d0000101XyZ')!;
    const lower = normalizeSalesforceId('0058d0000101xyz')!;
    const org = bridgeOrg();
    org.User!.push({ Id: upper, Email: 'upper@seller.test' }, { Id: lower, Email: 'lower@seller.test' });
    const fake = await startOrg(org);

    expect(await ids(fake, "SELECT Id, Email FROM User WHERE Id IN ('0058d0000101XyZ')")).toEqual([upper]);
    expect(await ids(fake, "SELECT Id, Email FROM User WHERE Id IN ('0058d0000101xyz')")).toEqual([lower]);
    expect(await ids(fake, `SELECT Id, Email FROM User WHERE Id IN ('${lower}')`)).toEqual([lower]);
    expect(upper).not.toBe(lower);
  });

  it('when Contacts are asked for by email, then the match ignores case and answers the email as stored', async () => {
    const fake = await startOrg(bridgeOrg());

    const found = await records(fake, "SELECT Id, Email, AccountId FROM Contact WHERE Email IN ('ann@globex.test','BOB@GLOBEX.TEST','nobody@globex.test')");

    expect(found).toEqual([
      { Id: C.ann, Email: 'Ann@Globex.test', AccountId: A.globex },
      { Id: C.bob, Email: 'bob@globex.test', AccountId: A.globex },
    ]);
  });

  it('when Leads are asked for by email, then converted Leads are left out and a Lead without IsConverted counts as not converted', async () => {
    const fake = await startOrg(bridgeOrg());

    const found = await records(
      fake,
      "SELECT Id, Email FROM Lead WHERE IsConverted = false AND Email IN ('lena@hooli.test','ann@globex.test','mo@hooli.test')",
    );

    expect(found).toEqual([
      { Id: L.lena, Email: 'lena@hooli.test' },
      { Id: L.mo, Email: 'MO@hooli.test' },
    ]);
  });

  it('when Accounts are asked for by contact domain, then Contacts without an Account and at other domains are left out', async () => {
    const fake = await startOrg(bridgeOrg());

    const found = await records(
      fake,
      "SELECT AccountId, Email FROM Contact WHERE AccountId != null AND (Email LIKE '%@globex.test' OR Email LIKE '%@initech.test') LIMIT 2000",
    );

    expect(found).toEqual([
      { AccountId: A.globex, Email: 'Ann@Globex.test' },
      { AccountId: A.globex, Email: 'bob@globex.test' },
      { AccountId: A.initech, Email: 'carl@initech.test' },
    ]);
  });

  it('when Accounts are asked for by website, then every website holding the domain answers, most recently modified first', async () => {
    const fake = await startOrg(bridgeOrg());

    const found = await records(
      fake,
      "SELECT Id, Website FROM Account WHERE Website LIKE '%globex.test%' OR Website LIKE '%initech.test%' ORDER BY LastModifiedDate DESC LIMIT 200",
    );

    expect(found).toEqual([
      { Id: A.notGlobex, Website: 'notglobex.test' },
      { Id: A.globex, Website: 'https://www.globex.test' },
      { Id: A.initech, Website: 'http://initech.test/about' },
    ]);
  });

  it('when Opportunities are asked for by account, then open ones and those closed within 365 days answer with owner and contact role emails', async () => {
    const fake = await startOrg(bridgeOrg());

    const reply = await query(
      fake,
      `SELECT Id, AccountId, IsClosed, CloseDate, CreatedDate, LastModifiedDate, Owner.Email, (SELECT Contact.Email FROM OpportunityContactRoles) ` +
        `FROM Opportunity WHERE AccountId IN ('${A.globex}','${A.initech}') AND (IsClosed = false OR CloseDate = LAST_N_DAYS:365) ORDER BY LastModifiedDate DESC LIMIT 1000`,
    );

    const body = reply.body as { totalSize: number; records: Array<Record<string, unknown>> };
    expect(reply.status).toBe(200);
    expect(body.records.map((record) => record.Id)).toEqual([O.initech, O.open, O.closedLastYear]);
    expect(body.records[0]).toEqual({
      attributes: url('Opportunity', O.initech),
      Id: O.initech,
      AccountId: A.initech,
      IsClosed: false,
      CloseDate: '2026-04-15',
      CreatedDate: '2026-03-01T09:00:00.000+0000',
      LastModifiedDate: '2026-03-01T09:00:00.000+0000',
      Owner: { attributes: url('User', U.noEmail), Email: null },
      OpportunityContactRoles: null,
    });
    expect(body.records[1]?.OpportunityContactRoles).toEqual({
      totalSize: 2,
      done: true,
      records: [
        { attributes: url('OpportunityContactRole', R.annOnOpen), Contact: { attributes: url('Contact', C.ann), Email: 'Ann@Globex.test' } },
        { attributes: url('OpportunityContactRole', R.carlOnOpen), Contact: { attributes: url('Contact', C.carl), Email: 'carl@initech.test' } },
      ],
    });
    expect(body.records[2]?.Owner).toEqual({ attributes: url('User', U.pete), Email: 'Pete@Seller.test' });
  });
});

describe('fake Salesforce org: the richer queries matching will send', () => {
  it('when Contacts are asked for with their Account type and website, then the Account comes nested, or null without one', async () => {
    const fake = await startOrg(bridgeOrg());

    const found = await records(
      fake,
      "SELECT Id, Email, AccountId, Account.Type, Account.Website FROM Contact WHERE Email IN ('ann@globex.test','dora@globex.test')",
    );

    expect(found).toEqual([
      {
        Id: C.ann,
        Email: 'Ann@Globex.test',
        AccountId: A.globex,
        Account: { attributes: url('Account', A.globex), Type: 'Customer', Website: 'https://www.globex.test' },
      },
      { Id: C.dora, Email: 'dora@globex.test', AccountId: null, Account: null },
    ]);
  });

  it('when Opportunities are asked for with contact roles and team members, then both child relationships answer, null when empty', async () => {
    const fake = await startOrg(bridgeOrg());

    const found = await records(
      fake,
      'SELECT Id, Name, AccountId, Account.Type, IsClosed, IsWon, StageName, CloseDate, CreatedDate, LastModifiedDate, OwnerId, Owner.Email, ' +
        '(SELECT ContactId, Contact.Email, IsPrimary, Role FROM OpportunityContactRoles), (SELECT User.Email FROM OpportunityTeamMembers) ' +
        `FROM Opportunity WHERE AccountId IN ('${A.globex}','${A.initech}') AND (IsClosed = false OR CloseDate >= LAST_N_DAYS:365)`,
    );

    expect(found.map((record) => record.Id)).toEqual([O.open, O.closedLastYear, O.initech]);
    expect(found[0]).toMatchObject({ Name: 'Globex renewal', Account: { Type: 'Customer' }, IsWon: false, StageName: 'Negotiation', OwnerId: U.olivia });
    expect(found[0]?.OpportunityContactRoles).toMatchObject({
      totalSize: 2,
      records: [
        { ContactId: C.ann, Contact: { Email: 'Ann@Globex.test' }, IsPrimary: true, Role: 'Decision Maker' },
        { ContactId: C.carl, Contact: { Email: 'carl@initech.test' }, IsPrimary: false, Role: 'Influencer' },
      ],
    });
    expect(found[0]?.OpportunityTeamMembers).toMatchObject({ totalSize: 1, done: true, records: [{ User: { Email: 'Pete@Seller.test' } }] });
    expect(found[1]?.OpportunityTeamMembers).toBeNull();
    expect(found[2]).toMatchObject({
      Account: { Type: 'Partner' },
      OpportunityContactRoles: null,
      OpportunityTeamMembers: { records: [{ User: { Email: 'olivia@seller.test' } }] },
    });
  });

  it('when Accounts are asked for by id, then their name, website and type answer', async () => {
    const fake = await startOrg(bridgeOrg());

    const found = await records(fake, `SELECT Id, Name, Website, Type FROM Account WHERE Id IN ('${A.initech}','${A.notGlobex.slice(0, 15)}')`);

    expect(found).toEqual([
      { Id: A.notGlobex, Name: 'Not Globex', Website: 'notglobex.test', Type: null },
      { Id: A.initech, Name: 'Initech', Website: 'http://initech.test/about', Type: 'Partner' },
    ]);
  });
});
