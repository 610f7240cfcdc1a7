import { describe, expect, it } from 'vitest';

import { orgsClosedAfterEach, query, sfId } from './fake-salesforce-org-support.ts';

/*
 * A query the fake cannot evaluate, or one Salesforce would refuse, answers 400 with Salesforce's
 * error shape (docs/protocols.md §2 "SOQL"): a changed or unsupported query fails loudly, never
 * as an empty result that a matching test would read as "no match".
 */

const startOrg = orgsClosedAfterEach();
const org = () => ({
  Account: [{ Id: sfId('001', 1), Name: 'Acme', Type: 'Customer' }],
  Opportunity: [{ Id: sfId('006', 1), AccountId: sfId('001', 1), IsClosed: false, CloseDate: '2026-03-02' }],
});

describe('fake Salesforce org: refused queries', () => {
  it.each([
    ['an unknown object', 'SELECT Id FROM Widget', 'INVALID_TYPE', "sObject type 'Widget' is not supported."],
    ['an unknown field', 'SELECT Id, Revenue FROM Account', 'INVALID_FIELD', "No such column 'Revenue' on entity 'Account'."],
    ['an unknown field in WHERE', "SELECT Id FROM Account WHERE Tier = 'Gold'", 'INVALID_FIELD', "No such column 'Tier' on entity 'Account'."],
    [
      'an unknown parent relationship',
      'SELECT Id, Parent.Name FROM Opportunity',
      'INVALID_FIELD',
      "Didn't understand relationship 'Parent' in field path of entity 'Opportunity'.",
    ],
    [
      'an unknown child relationship',
      'SELECT Id, (SELECT Id FROM Cases) FROM Account',
      'INVALID_TYPE',
      "Didn't understand relationship 'Cases' in FROM part of query call on entity 'Account'.",
    ],
    [
      'a string for a checkbox',
      "SELECT Id FROM Opportunity WHERE IsClosed = 'false'",
      'INVALID_FIELD',
      "value of filter criterion for field 'IsClosed' must be of type boolean and should not be enclosed in quotes",
    ],
    [
      'a datetime for a date field',
      'SELECT Id FROM Opportunity WHERE CloseDate = 2026-03-02T00:00:00Z',
      'INVALID_FIELD',
      "value of filter criterion for field 'CloseDate' must be of type date and should not be enclosed in quotes",
    ],
    [
      'a number for a text field',
      'SELECT Id FROM Account WHERE Name = 5',
      'INVALID_FIELD',
      "value of filter criterion for field 'Name' must be of type string and should be enclosed in quotes",
    ],
    ['an id that is no id', "SELECT Id FROM Account WHERE Id IN ('001abc')", 'INVALID_QUERY_FILTER_OPERATOR', 'invalid ID field: 001abc'],
    [
      'LIKE on a checkbox',
      "SELECT Id FROM Opportunity WHERE IsClosed LIKE 't%'",
      'INVALID_QUERY_FILTER_OPERATOR',
      'invalid operator on boolean field: LIKE on IsClosed',
    ],
    ['AND and OR mixed without parentheses', "SELECT Id FROM Account WHERE Name = 'a' AND Type = 'b' OR Type = 'c'", 'MALFORMED_QUERY', 'unexpected token: OR'],
    [
      'an illegal escape',
      "SELECT Id FROM Account WHERE Name = 'a\\qb'",
      'MALFORMED_QUERY',
      "Invalid string literal 'a\\qb'. Illegal character sequence '\\q' in string literal.",
    ],
    ['a duplicate field', 'SELECT Id, id FROM Account', 'MALFORMED_QUERY', 'duplicate field selected: id'],
  ])('when the query has %s, then it answers 400 %s', async (_situation, soql, errorCode, message) => {
    const fake = await startOrg(org());

    const reply = await query(fake, soql);

    expect(reply).toEqual({ status: 400, body: [{ message, errorCode }] });
  });

  it.each([
    ['a syntax error', 'SELECT Id FROM'],
    ['GROUP BY', 'SELECT Type FROM Account GROUP BY Type'],
    ['an aggregate function', 'SELECT COUNT(Id) FROM Account'],
    ['a semi-join', 'SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Opportunity)'],
    ['a function in WHERE', 'SELECT Id FROM Opportunity WHERE CALENDAR_YEAR(CloseDate) = 2026'],
    ['TYPEOF', 'SELECT TYPEOF Owner WHEN User THEN Email END FROM Account'],
    ['INCLUDES', "SELECT Id FROM Account WHERE Type INCLUDES ('a')"],
    ['a date literal the fake does not evaluate', 'SELECT Id FROM Opportunity WHERE CloseDate = THIS_FISCAL_QUARTER'],
    ['an object alias', 'SELECT a.Id FROM Account a'],
    ['WITH SECURITY_ENFORCED', 'SELECT Id FROM Account WITH SECURITY_ENFORCED'],
  ])('when the query has %s, then it answers 400 MALFORMED_QUERY', async (_situation, soql) => {
    const fake = await startOrg(org());

    const reply = await query(fake, soql);

    expect(reply.status).toBe(400);
    expect(reply.body).toEqual([{ message: expect.any(String) as string, errorCode: 'MALFORMED_QUERY' }]);
  });

  it('when the org holds no record of the object, then an unknown field is still refused', async () => {
    const fake = await startOrg({ Contact: [] });

    const reply = await query(fake, "SELECT Id FROM Contact WHERE Emial = 'a@b.test'");

    expect(reply).toEqual({ status: 400, body: [{ message: "No such column 'Emial' on entity 'Contact'.", errorCode: 'INVALID_FIELD' }] });
  });
});
