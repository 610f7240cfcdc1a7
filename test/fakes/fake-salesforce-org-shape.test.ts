import { describe, expect, it } from 'vitest';

import { ids, orgsClosedAfterEach, query, records, sfId } from './fake-salesforce-org-support.ts';

/*
 * What the fake answers besides WHERE (docs/protocols.md §2 "SOQL"): the records' shape and
 * names, ORDER BY, LIMIT and OFFSET, child subqueries with their own clauses, and COUNT().
 */

const startOrg = orgsClosedAfterEach();
const ID = (n: number) => sfId('006', n);

describe('fake Salesforce org: answers, order and limits', () => {
  it('when the query writes names in another case, then it is answered under the names the org writes, in the order selected', async () => {
    const fake = await startOrg({ Account: [{ Id: sfId('001', 1), Name: 'Globex', Tier__c: 'Gold' }] });

    const reply = await query(fake, "select tier__c, NAME, id from ACCOUNT where TIER__C = 'gold'");

    const record = (reply.body as { records: Array<Record<string, unknown>> }).records[0]!;
    expect(reply.status).toBe(200);
    expect(Object.keys(record)).toEqual(['attributes', 'Tier__c', 'Name', 'Id']);
    expect(record.attributes).toEqual({ type: 'Account', url: `/services/data/v62.0/sobjects/Account/${sfId('001', 1)}` });
  });

  it('when a field the org does not hold is standard, then it answers null; a checkbox answers false', async () => {
    const fake = await startOrg({ Opportunity: [{ Id: ID(1) }] });

    expect(await records(fake, 'SELECT Id, Name, CloseDate, IsWon FROM Opportunity')).toEqual([{ Id: ID(1), Name: null, CloseDate: null, IsWon: false }]);
  });

  it('when several fields of one parent and of a grandparent are selected, then they nest under one relationship each', async () => {
    const org = {
      User: [{ Id: sfId('005', 1), Email: 'olivia@seller.test' }],
      Account: [{ Id: sfId('001', 1), Type: 'Customer', Website: 'globex.test', OwnerId: sfId('005', 1) }],
      Contact: [{ Id: sfId('003', 1), Email: 'ann@globex.test', AccountId: sfId('001', 1) }],
      OpportunityContactRole: [{ Id: sfId('00K', 1), ContactId: sfId('003', 1) }],
    };
    const fake = await startOrg(org);

    const found = await records(
      fake,
      'SELECT Contact.Account.Type, Contact.Email, Contact.Account.Owner.Email, Contact.Account.Website FROM OpportunityContactRole',
    );

    const contact = found[0]?.Contact as Record<string, unknown>;
    expect(Object.keys(contact)).toEqual(['attributes', 'Account', 'Email']);
    expect(contact.Account).toEqual({
      attributes: { type: 'Account', url: `/services/data/v62.0/sobjects/Account/${sfId('001', 1)}` },
      Type: 'Customer',
      Owner: { attributes: { type: 'User', url: `/services/data/v62.0/sobjects/User/${sfId('005', 1)}` }, Email: 'olivia@seller.test' },
      Website: 'globex.test',
    });
  });

  it('when ORDER BY names several fields, then ties fall to the next field, text ignores case and nulls come first by default', async () => {
    const org = {
      Opportunity: [
        { Id: ID(1), StageName: 'beta', Amount: 5 },
        { Id: ID(2), StageName: null, Amount: 1 },
        { Id: ID(3), StageName: 'Alpha', Amount: 7 },
        { Id: ID(4), StageName: 'BETA', Amount: 9 },
      ],
    };
    const fake = await startOrg(org);
    const ordered = (orderBy: string) => ids(fake, `SELECT Id FROM Opportunity ORDER BY ${orderBy}`);

    expect(await ordered('StageName, Amount DESC')).toEqual([ID(2), ID(3), ID(4), ID(1)]);
    expect(await ordered('StageName DESC, Amount')).toEqual([ID(2), ID(1), ID(4), ID(3)]);
    expect(await ordered('StageName DESC NULLS LAST, Amount')).toEqual([ID(1), ID(4), ID(3), ID(2)]);
    expect(await ordered('StageName ASC NULLS LAST, Amount ASC')).toEqual([ID(3), ID(1), ID(4), ID(2)]);
  });

  it('when ORDER BY names a datetime or a parent field, then records sort by instant and by the parent value', async () => {
    const org = {
      Account: [
        { Id: sfId('001', 1), Name: 'Zeta' },
        { Id: sfId('001', 2), Name: 'alpha' },
      ],
      Opportunity: [
        { Id: ID(1), AccountId: sfId('001', 1), LastModifiedDate: '2026-03-01T10:00:00.000+0000' },
        { Id: ID(2), AccountId: sfId('001', 2), LastModifiedDate: '2026-03-01T09:00:00.000-0200' },
        { Id: ID(3), AccountId: null, LastModifiedDate: '2026-02-28T23:00:00Z' },
      ],
    };
    const fake = await startOrg(org);

    expect(await ids(fake, 'SELECT Id FROM Opportunity ORDER BY LastModifiedDate DESC')).toEqual([ID(2), ID(1), ID(3)]);
    expect(await ids(fake, 'SELECT Id FROM Opportunity ORDER BY Account.Name NULLS LAST')).toEqual([ID(2), ID(1), ID(3)]);
  });

  it('when LIMIT and OFFSET are given, then they apply after the order and totalSize counts what is answered', async () => {
    const fake = await startOrg({ Opportunity: [1, 2, 3, 4, 5].map((n) => ({ Id: ID(n), Amount: n })) });

    const reply = await query(fake, 'SELECT Id FROM Opportunity ORDER BY Amount DESC LIMIT 2 OFFSET 1');

    expect(reply.body).toMatchObject({ totalSize: 2, done: true, records: [{ Id: ID(4) }, { Id: ID(3) }] });
  });

  it('when a child subquery has its own WHERE, ORDER BY and LIMIT, then they apply to each parent’s children alone', async () => {
    const role = (n: number, opportunity: number, fields: Record<string, unknown>) => ({ Id: sfId('00K', n), OpportunityId: ID(opportunity), ...fields });
    const org = {
      Opportunity: [{ Id: ID(1) }, { Id: ID(2) }],
      OpportunityContactRole: [
        role(1, 1, { Role: 'b', IsPrimary: false }),
        role(2, 1, { Role: 'a', IsPrimary: false }),
        role(3, 1, { Role: 'c', IsPrimary: true }),
        role(4, 2, { Role: 'd', IsPrimary: true }),
        role(5, 2, { Role: 'e', IsPrimary: true }),
      ],
    };
    const fake = await startOrg(org);

    const found = await records(fake, 'SELECT Id, (SELECT Role FROM OpportunityContactRoles WHERE IsPrimary = false ORDER BY Role LIMIT 1) FROM Opportunity');

    expect(found[0]?.OpportunityContactRoles).toMatchObject({ totalSize: 1, done: true, records: [{ Role: 'a' }] });
    expect(found[1]?.OpportunityContactRoles).toBeNull();
  });

  it('when Accounts are asked for with their Contacts and Opportunities, then each child list holds only that Account’s records', async () => {
    const org = {
      Account: [{ Id: sfId('001', 1) }, { Id: sfId('001', 2) }],
      Contact: [
        { Id: sfId('003', 1), AccountId: sfId('001', 2) },
        { Id: sfId('003', 2), AccountId: sfId('001', 1) },
      ],
      Opportunity: [{ Id: ID(1), AccountId: sfId('001', 1) }],
    };
    const fake = await startOrg(org);

    const found = await records(fake, 'SELECT Id, (SELECT Id FROM Contacts), (SELECT Id FROM Opportunities) FROM Account');

    expect(found[0]).toMatchObject({ Contacts: { totalSize: 1, records: [{ Id: sfId('003', 2) }] }, Opportunities: { records: [{ Id: ID(1) }] } });
    expect(found[1]).toMatchObject({ Contacts: { totalSize: 1, records: [{ Id: sfId('003', 1) }] }, Opportunities: null });
  });

  it('when COUNT() is selected, then totalSize is the number of matching records and no record is answered', async () => {
    const fake = await startOrg({ Lead: [{ Id: sfId('00Q', 1), IsConverted: true }, { Id: sfId('00Q', 2) }, { Id: sfId('00Q', 3) }] });

    const reply = await query(fake, 'SELECT COUNT() FROM Lead WHERE IsConverted = false');

    expect(reply).toEqual({ status: 200, body: { totalSize: 2, done: true, records: [] } });
  });
});
