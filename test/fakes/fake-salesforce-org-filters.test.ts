import { describe, expect, it } from 'vitest';

import type { JsonOrg } from './fake-salesforce-org/index.ts';
import { ids, orgsClosedAfterEach, sfId } from './fake-salesforce-org-support.ts';

/*
 * WHERE as the fake evaluates it (docs/protocols.md §2 "SOQL"): comparison operators on each type,
 * LIKE, escapes, null, NOT and parentheses, dates and date literals on the clock NOW (2 March 2026,
 * 15:00 UTC), and conditions on parent fields.
 */

const startOrg = orgsClosedAfterEach();
const opp = (n: number, fields: Record<string, unknown>) => ({ Id: sfId('006', n), ...fields });
const ID = (n: number) => sfId('006', n);

async function idsOf(org: JsonOrg, soql: string) {
  return ids(await startOrg(org), soql);
}

describe('fake Salesforce org: WHERE', () => {
  it('when numbers are compared with = != < <= > >= IN and NOT IN, then each operator keeps what it says', async () => {
    const fake = await startOrg({ Opportunity: [opp(1, { Amount: 100 }), opp(2, { Amount: 250.5 }), opp(3, { Amount: 400 }), opp(4, { Amount: null })] });
    const where = (condition: string) => ids(fake, `SELECT Id FROM Opportunity WHERE ${condition}`);

    expect(await where('Amount = 250.5')).toEqual([ID(2)]);
    expect(await where('Amount != 250.5')).toEqual([ID(1), ID(3), ID(4)]);
    expect(await where('Amount < 250.5')).toEqual([ID(1)]);
    expect(await where('Amount <= 250.5')).toEqual([ID(1), ID(2)]);
    expect(await where('Amount > 250.5')).toEqual([ID(3)]);
    expect(await where('Amount >= 250.5')).toEqual([ID(2), ID(3)]);
    expect(await where('Amount IN (100, 400)')).toEqual([ID(1), ID(3)]);
    expect(await where('Amount NOT IN (100, 400)')).toEqual([ID(2), ID(4)]);
    expect(await where('Amount = null')).toEqual([ID(4)]);
    expect(await where('Amount != null')).toEqual([ID(1), ID(2), ID(3)]);
  });

  it('when text is compared, then = != IN and the ordering operators ignore case, and != keeps records whose text is null', async () => {
    const fake = await startOrg({ Opportunity: [opp(1, { StageName: 'Prospecting' }), opp(2, { StageName: 'negotiation' }), opp(3, { StageName: null })] });
    const where = (condition: string) => ids(fake, `SELECT Id FROM Opportunity WHERE ${condition}`);

    expect(await where("StageName = 'PROSPECTING'")).toEqual([ID(1)]);
    expect(await where("StageName != 'prospecting'")).toEqual([ID(2), ID(3)]);
    expect(await where("StageName IN ('Negotiation', 'closed')")).toEqual([ID(2)]);
    expect(await where("StageName < 'O'")).toEqual([ID(2)]);
    expect(await where("StageName >= 'o'")).toEqual([ID(1)]);
  });

  it('when LIKE has % and _, then it matches any run and one character, ignoring case, and never null', async () => {
    const fake = await startOrg({
      Contact: [
        { Id: sfId('003', 1), Email: 'Ann@Globex.test' },
        { Id: sfId('003', 2), Email: 'an@globex.test' },
        { Id: sfId('003', 3), Email: null },
      ],
    });
    const where = (condition: string) => ids(fake, `SELECT Id FROM Contact WHERE ${condition}`);

    expect(await where("Email LIKE '%@GLOBEX.test'")).toEqual([sfId('003', 1), sfId('003', 2)]);
    expect(await where("Email LIKE 'a_n@%'")).toEqual([sfId('003', 1)]);
    expect(await where("Email LIKE 'an@globex.tes'")).toEqual([]);
    expect(await where("NOT Email LIKE 'ann%'")).toEqual([sfId('003', 2), sfId('003', 3)]);
  });

  it("when a string holds escapes (\\' \\\\ \\% \\_), then they stand for the characters themselves", async () => {
    const fake = await startOrg({
      Account: [
        { Id: sfId('001', 1), Name: "O'Brien & Sons" },
        { Id: sfId('001', 2), Name: 'Back\\slash' },
        { Id: sfId('001', 3), Name: '100% Cotton' },
        { Id: sfId('001', 4), Name: '100 Percent Cotton' },
        { Id: sfId('001', 5), Name: 'snake_case' },
        { Id: sfId('001', 6), Name: 'snakeXcase' },
      ],
    });
    const where = (condition: string) => ids(fake, `SELECT Id FROM Account WHERE ${condition}`);

    expect(await where("Name = 'o\\'brien & sons'")).toEqual([sfId('001', 1)]);
    expect(await where("Name = 'Back\\\\slash'")).toEqual([sfId('001', 2)]);
    expect(await where("Name LIKE '100\\%%'")).toEqual([sfId('001', 3)]);
    expect(await where("Name LIKE '100%'")).toEqual([sfId('001', 3), sfId('001', 4)]);
    expect(await where("Name LIKE 'snake\\_case'")).toEqual([sfId('001', 5)]);
    expect(await where("Name LIKE 'snake_case'")).toEqual([sfId('001', 5), sfId('001', 6)]);
  });

  it('when booleans are compared, then true and false match, = null means false, and a missing checkbox is false', async () => {
    const fake = await startOrg({ Opportunity: [opp(1, { IsClosed: true }), opp(2, { IsClosed: false }), opp(3, {})] });
    const where = (condition: string) => ids(fake, `SELECT Id FROM Opportunity WHERE ${condition}`);

    expect(await where('IsClosed = true')).toEqual([ID(1)]);
    expect(await where('IsClosed = FALSE')).toEqual([ID(2), ID(3)]);
    expect(await where('IsClosed != false')).toEqual([ID(1)]);
    expect(await where('IsClosed = null')).toEqual([ID(2), ID(3)]);
  });

  it('when AND, OR and NOT nest with parentheses, then each group is evaluated on its own', async () => {
    const org = {
      Opportunity: [
        opp(1, { StageName: 'A', IsClosed: false, Amount: 10 }),
        opp(2, { StageName: 'B', IsClosed: false, Amount: 20 }),
        opp(3, { StageName: 'A', IsClosed: true, Amount: 30 }),
        opp(4, { StageName: 'C', IsClosed: true, Amount: 40 }),
      ],
    };
    const fake = await startOrg(org);
    const where = (condition: string) => ids(fake, `SELECT Id FROM Opportunity WHERE ${condition}`);

    expect(await where("(StageName = 'A' OR StageName = 'B') AND IsClosed = false")).toEqual([ID(1), ID(2)]);
    expect(await where("StageName = 'A' OR (StageName = 'C' AND Amount > 35)")).toEqual([ID(1), ID(3), ID(4)]);
    expect(await where("NOT (StageName = 'A' OR Amount = 20)")).toEqual([ID(4)]);
    expect(await where("(NOT StageName = 'A') AND (IsClosed = true OR (Amount < 25 AND NOT Amount = 10))")).toEqual([ID(2), ID(4)]);
    expect(await where("((StageName = 'A'))")).toEqual([ID(1), ID(3)]);
  });

  it('when dates and datetimes are compared with literals, then a date compares by day and a datetime by instant, offsets applied', async () => {
    const fake = await startOrg({
      Opportunity: [
        opp(1, { CloseDate: '2026-03-01', CreatedDate: '2026-03-02T15:59:59.000+0000' }),
        opp(2, { CloseDate: '2026-03-02', CreatedDate: '2026-03-02T16:00:00.000+0000' }),
        opp(3, { CloseDate: '2026-03-03', CreatedDate: '2026-03-02T16:00:01.000+0000' }),
      ],
    });
    const where = (condition: string) => ids(fake, `SELECT Id FROM Opportunity WHERE ${condition}`);

    expect(await where('CloseDate = 2026-03-02')).toEqual([ID(2)]);
    expect(await where('CloseDate > 2026-03-01')).toEqual([ID(2), ID(3)]);
    expect(await where('CreatedDate >= 2026-03-02T16:00:00Z')).toEqual([ID(2), ID(3)]);
    expect(await where('CreatedDate < 2026-03-02T17:00:00+01:00')).toEqual([ID(1)]);
  });

  it('when TODAY, LAST_N_DAYS:n and NEXT_N_DAYS:n are used, then they cover whole UTC days around the clock', async () => {
    const closing = (n: number, day: string) => opp(n, { CloseDate: day });
    const org = {
      Opportunity: [
        closing(1, '2026-02-28'),
        closing(2, '2026-03-01'),
        closing(3, '2026-03-02'),
        closing(4, '2026-03-03'),
        closing(5, '2026-03-04'),
        closing(6, '2026-03-05'),
      ],
    };
    const fake = await startOrg(org);
    const where = (condition: string) => ids(fake, `SELECT Id FROM Opportunity WHERE ${condition}`);

    expect(await where('CloseDate = TODAY')).toEqual([ID(3)]);
    expect(await where('CloseDate = LAST_N_DAYS:1')).toEqual([ID(2), ID(3)]);
    expect(await where('CloseDate >= LAST_N_DAYS:1')).toEqual([ID(2), ID(3), ID(4), ID(5), ID(6)]);
    expect(await where('CloseDate < LAST_N_DAYS:1')).toEqual([ID(1)]);
    expect(await where('CloseDate = NEXT_N_DAYS:2')).toEqual([ID(4), ID(5)]);
    expect(await where('CloseDate > NEXT_N_DAYS:2')).toEqual([ID(6)]);
    expect(await where('CloseDate <= TODAY')).toEqual([ID(1), ID(2), ID(3)]);
  });

  it('when a datetime is compared with a date literal, then the literal covers the whole UTC day', async () => {
    const created = (n: number, at: string) => opp(n, { CreatedDate: at });
    const org = {
      Opportunity: [
        created(1, '2026-03-01T23:59:59.000+0000'),
        created(2, '2026-03-02T00:00:00.000+0000'),
        created(3, '2026-03-02T23:59:59.999Z'),
        created(4, '2026-03-03T00:00:00Z'),
      ],
    };

    expect(await idsOf(org, 'SELECT Id FROM Opportunity WHERE CreatedDate = TODAY')).toEqual([ID(2), ID(3)]);
  });

  it("when a condition reads a parent field, then a record without the parent reads null and is kept by != 'Partner'", async () => {
    const org = {
      Account: [
        { Id: sfId('001', 1), Type: 'Partner' },
        { Id: sfId('001', 2), Type: 'Customer' },
      ],
      Contact: [
        { Id: sfId('003', 1), AccountId: sfId('001', 1) },
        { Id: sfId('003', 2), AccountId: sfId('001', 2) },
        { Id: sfId('003', 3), AccountId: null },
        { Id: sfId('003', 4), AccountId: sfId('001', 9) },
      ],
    };
    const fake = await startOrg(org);

    expect(await ids(fake, "SELECT Id FROM Contact WHERE Account.Type != 'Partner'")).toEqual([sfId('003', 2), sfId('003', 3), sfId('003', 4)]);
    expect(await ids(fake, "SELECT Id FROM Contact WHERE account.type = 'customer'")).toEqual([sfId('003', 2)]);
    expect(await ids(fake, 'SELECT Id FROM Contact WHERE Account.Type = null')).toEqual([sfId('003', 3), sfId('003', 4)]);
  });
});
