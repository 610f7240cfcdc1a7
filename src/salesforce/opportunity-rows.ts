import { normalizeSalesforceId } from '../mapping/salesforce-ids.ts';
import type { OpportunityRecord } from '../matching/directory.ts';

/** One row of a SOQL answer (docs/protocols.md §5): fields by API name, parent relationships as nested rows. */
export type Rec = Record<string, unknown>;

const id18 = (value: unknown) => (typeof value === 'string' ? normalizeSalesforceId(value) : undefined);
const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : '');
const textOrNull = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
/** A child relationship's rows: Salesforce answers null, not an empty list, when there are none. */
const children = (value: unknown): Rec[] => ((value as { records?: Rec[] } | null)?.records ?? []).filter((row) => row !== null);

/** An Opportunity row as matching reads it, or undefined when it lacks its ids. */
export function opportunityOf(row: Rec): OpportunityRecord | undefined {
  const id = id18(row.Id);
  const accountId = id18(row.AccountId);
  if (id === undefined || accountId === undefined) return undefined;
  return {
    id,
    name: textOrNull(row.Name),
    accountId,
    accountType: textOrNull((row.Account as Rec | null)?.Type),
    isClosed: row.IsClosed === true,
    isWon: row.IsWon === true,
    stageName: textOrNull(row.StageName),
    closeDate: typeof row.CloseDate === 'string' ? row.CloseDate : null,
    createdDate: String(row.CreatedDate ?? ''),
    lastModifiedDate: String(row.LastModifiedDate ?? ''),
    ownerEmail: lower((row.Owner as Rec | null)?.Email) || null,
    contactRoles: children(row.OpportunityContactRoles)
      .map((role) => ({ email: lower((role.Contact as Rec | null)?.Email), isPrimary: role.IsPrimary === true, role: textOrNull(role.Role) }))
      .filter((role) => role.email !== ''),
    teamEmails: children(row.OpportunityTeamMembers)
      .map((member) => lower((member.User as Rec | null)?.Email))
      .filter((email) => email !== ''),
  };
}
