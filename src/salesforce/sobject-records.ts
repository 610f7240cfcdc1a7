import type { RecordKind, SObjectRule } from '../mapping/rules-schema.ts';
import { classifySalesforceId, normalizeSalesforceId } from '../mapping/salesforce-ids.ts';
import type { SalesforceRecords } from '../momentum/schemas.ts';

const KEY_OF: Record<RecordKind, keyof SalesforceRecords> = { opportunity: 'opportunityId', account: 'accountId', lead: 'leadId' };
const PREFIX_OF: Record<RecordKind, string> = { opportunity: '006', account: '001', lead: '00Q' };

export interface RecordsResult {
  records: SalesforceRecords;
  /** Why fields the rule names gave nothing, for the skip reason. */
  notes: string[];
  /** The fields that were read, for the skip reason. */
  fieldsRead: string[];
}

/**
 * The Salesforce ids a notification carries, by the rule: explicit fields first, then the
 * record's own Id (`useRecordIdAs`), then `recordIdFields` classified by key prefix, first found
 * wins. Every id is normalised to 18 characters (docs/protocols.md §2) before it is forwarded.
 */
export function extractRecords(rule: SObjectRule, fields: Readonly<Record<string, string>>): RecordsResult {
  const found: Partial<Record<RecordKind, string>> = {};
  const notes: string[] = [];
  const fieldsRead: string[] = [];

  const read = (field: string): string | undefined => {
    fieldsRead.push(field);
    const value = fields[field];
    if (value === undefined || value.trim() === '') return undefined;
    const id = normalizeSalesforceId(value);
    if (id === undefined) notes.push(`${field} ${JSON.stringify(value)} is not a Salesforce id`);
    return id;
  };

  const explicit: Array<[RecordKind, string | undefined]> = [
    ['opportunity', rule.opportunityIdField],
    ['account', rule.accountIdField],
    ['lead', rule.leadIdField],
  ];
  for (const [kind, field] of explicit) {
    if (field === undefined) continue;
    const id = read(field);
    if (id === undefined) continue;
    // A lookup field always holds its target's prefix; another prefix means a misconfigured field.
    if (classifySalesforceId(id) === kind) found[kind] ??= id;
    else notes.push(`${field} ${id} is not an ${kind} id (${PREFIX_OF[kind]}…)`);
  }

  if (rule.useRecordIdAs !== undefined) {
    const id = read('Id');
    if (id !== undefined) found[rule.useRecordIdAs] ??= id;
  }

  for (const field of rule.recordIdFields) {
    const id = read(field);
    if (id === undefined) continue;
    const kind = classifySalesforceId(id);
    // Contacts (003), Users and other objects have no place in salesforceRecords: not forwarded.
    if (kind === undefined) notes.push(`${field} ${id} is not an opportunity (006), account (001) or lead (00Q) id`);
    else found[kind] ??= id;
  }

  // Built in a fixed order so the same notification always serialises to the same body.
  const records: SalesforceRecords = {};
  for (const kind of ['opportunity', 'account', 'lead'] as const) {
    const id = found[kind];
    if (id !== undefined) records[KEY_OF[kind]] = id;
  }
  return { records, notes, fieldsRead: [...new Set(fieldsRead)] };
}
