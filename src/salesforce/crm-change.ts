import { normalizeSalesforceId } from '../mapping/salesforce-ids.ts';
import type { CrmChange } from '../matching/directory.ts';
import type { Touch } from '../matching/touches.ts';
import type { StoredNotification } from './stored-notification.ts';

/**
 * What a changed Salesforce record can change about matches (docs/calendars.md, re-matching): an
 * Opportunity (created, its Account, stage or close date changed), a Contact (an attendee became
 * one, or moved Account), a Lead (converted: `IsConverted`, `ConvertedAccountId`,
 * `ConvertedOpportunityId`), or any record naming an opportunity (an OpportunityContactRole). The
 * touches find the meetings whose match looked at the record; the change says which cached
 * lookups it made stale. Read from whatever fields the Outbound Message carries.
 */

export interface SalesforceCrmChange {
  touches: Touch[];
  change: CrmChange;
  /** For the match record: `Opportunity 006… changed in Salesforce`. */
  cause: string;
}

const id = (value: string | undefined) => (value === undefined || value === '' ? undefined : normalizeSalesforceId(value));
const email = (value: string | undefined) => (value !== undefined && value.includes('@') ? value.trim().toLowerCase() : undefined);

export function crmChangeOf(notification: Pick<StoredNotification, 'sObjectType' | 'fields'>): SalesforceCrmChange | undefined {
  const { sObjectType: type, fields } = notification;
  const touches: Touch[] = [];
  const emails: string[] = [];
  const accountIds: string[] = [];
  const touch = (kind: Touch['kind'], value: string | undefined) => {
    if (value !== undefined) touches.push({ kind, value });
  };
  const account = (value: string | undefined) => {
    const accountId = id(value);
    touch('account', accountId);
    if (accountId !== undefined) accountIds.push(accountId);
  };
  const person = (value: string | undefined) => {
    const address = email(value);
    touch('email', address);
    if (address !== undefined) emails.push(address);
  };
  if (type === 'Opportunity') {
    touch('opportunity', id(fields.Id));
    account(fields.AccountId);
  } else if (type === 'Contact') {
    person(fields.Email);
    touch('contact', id(fields.Id));
    account(fields.AccountId);
  } else if (type === 'Lead') {
    person(fields.Email);
    touch('lead', id(fields.Id));
    account(fields.ConvertedAccountId);
    touch('opportunity', id(fields.ConvertedOpportunityId));
  } else if (fields.OpportunityId !== undefined) {
    touch('opportunity', id(fields.OpportunityId));
    // A contact role names its Contact: the meetings that Contact attended are re-checked too.
    touch('contact', id(fields.ContactId));
  } else return undefined;
  if (touches.length === 0) return undefined;
  const domains = emails.map((address) => address.slice(address.lastIndexOf('@') + 1));
  return { touches, change: { emails, domains, accountIds }, cause: `${type}${fields.Id === undefined ? '' : ` ${fields.Id}`} changed in Salesforce` };
}
