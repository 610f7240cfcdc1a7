import { describe, expect, it } from 'vitest';

import { matchMeeting } from '../../src/matching/match-meeting.ts';
import { touchesOf } from '../../src/matching/touches.ts';
import { DEFAULT_MATCHING } from '../../src/matching/types.ts';
import { crmChangeOf } from '../../src/salesforce/crm-change.ts';
import { sfId } from '../calendar/support/directory-setup.ts';
import { memoryDirectory, opportunity } from './support/memory-directory.ts';

/* What a match looked at, and which CRM changes reach it: a change reaches a meeting when one of its touches is the match's. */

const ACME = sfId('001', 91);
const GAIL = sfId('003', 91);

describe('touches and CRM changes', () => {
  it('when two deals tie and a contact role is then saved on one, then the role’s change touches the meeting through its Contact', async () => {
    const directory = memoryDirectory({
      accounts: [{ id: ACME, website: 'acme.com' }],
      contacts: [{ id: GAIL, email: 'gail@acme.com', accountId: ACME }],
      opportunities: [opportunity('0068d00000DEALAAAA', ACME), opportunity('0068d00000DEALBAAA', ACME)],
    });
    const record = await matchMeeting(
      { attendees: [{ email: 'gail@acme.com', kind: 'external' }], startMs: Date.parse('2026-03-10T15:00:00Z') },
      directory,
      DEFAULT_MATCHING,
    );
    const role = crmChangeOf({
      sObjectType: 'OpportunityContactRole',
      fields: { Id: sfId('00K', 91), OpportunityId: sfId('006', 93), ContactId: GAIL },
    });

    const touched = touchesOf(record).map((touch) => `${touch.kind}:${touch.value}`);

    expect(record.outcome).toBe('ambiguous');
    expect(touched).toContain(`contact:${GAIL}`);
    expect(role?.touches.map((touch) => `${touch.kind}:${touch.value}`)).toContain(`contact:${GAIL}`);
  });

  it('when a Lead is converted, then the change touches its email, the Lead and the Account and opportunity it became', () => {
    const change = crmChangeOf({
      sObjectType: 'Lead',
      fields: { Id: sfId('00Q', 91), Email: 'Lee@Startup.io', IsConverted: 'true', ConvertedAccountId: ACME, ConvertedOpportunityId: sfId('006', 94) },
    });
    expect(change?.touches.map((touch) => touch.kind).sort()).toEqual(['account', 'email', 'lead', 'opportunity']);
    expect(change?.change).toEqual({ emails: ['lee@startup.io'], domains: ['startup.io'], accountIds: [ACME] });
  });

  it('when a record of another type names no opportunity, then it changes no match', () => {
    expect(crmChangeOf({ sObjectType: 'Case', fields: { Id: '5008d00000CASEAAA' } })).toBeUndefined();
  });
});
