import type { MappingRules, SObjectRule } from '../../mapping/rules-schema.ts';
import type { SalesforceApi } from '../jsforce-connection.ts';

/**
 * Reads through REST the records a Change Data Capture event cannot describe itself (docs/protocols.md,
 * Pub/Sub): a gap event carries only its header, an update only its changed fields. One SOQL query
 * per object and up to 200 ids, for the fields the mapping file and re-matching read.
 */

/** What re-matching reads of each object it follows (src/salesforce/crm-change.ts). */
const REMATCH_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Opportunity: ['AccountId'],
  Contact: ['Email', 'AccountId'],
  Lead: ['Email', 'ConvertedAccountId', 'ConvertedOpportunityId', 'IsConverted'],
  OpportunityContactRole: ['OpportunityId', 'ContactId'],
};

const IDS_PER_QUERY = 200;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)?$/;
const RECORD_ID = /^[0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?$/;

/** The fields one rule reads: every `…Field`, the id lists, and OwnerId when it looks up the owner's email. */
export function fieldsOfRule(rule: SObjectRule): string[] {
  const fields = new Set<string>();
  for (const [key, value] of Object.entries(rule)) {
    if (key.endsWith('Field') && typeof value === 'string') fields.add(value);
    if (key.endsWith('Fields') && Array.isArray(value)) for (const name of value) if (typeof name === 'string') fields.add(name);
  }
  if (rule.lookupOwnerEmail) fields.add('OwnerId');
  return [...fields];
}

/** The fields to read of an object: Id, SystemModstamp (which orders a record's states), and what the rules and re-matching read. */
export function fieldsToRead(rules: MappingRules, sObjectType: string): string[] {
  const rule = Object.hasOwn(rules.sObjects, sObjectType) ? rules.sObjects[sObjectType] : undefined;
  const fields = new Set(['Id', 'SystemModstamp', ...(rule === undefined ? [] : fieldsOfRule(rule)), ...(REMATCH_FIELDS[sObjectType] ?? [])]);
  return [...fields].filter((field) => FIELD_NAME.test(field));
}

const text = (value: unknown): string | undefined =>
  value === null || value === undefined || typeof value === 'object' ? undefined : String(value as string | number | boolean);

export interface RecordReader {
  /** Each record found, by its 15-character id: its fields as an Outbound Message would carry them (text; nulls absent). */
  read(sObjectType: string, ids: readonly string[]): Promise<Map<string, Record<string, string>>>;
}

export function createRecordReader(api: Pick<SalesforceApi, 'get'>, rules: () => MappingRules): RecordReader {
  return {
    async read(sObjectType, ids) {
      const found = new Map<string, Record<string, string>>();
      if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(sObjectType)) return found;
      const wanted = [...new Set(ids.filter((id) => RECORD_ID.test(id)))];
      const fields = fieldsToRead(rules(), sObjectType);
      for (let start = 0; start < wanted.length; start += IDS_PER_QUERY) {
        const chunk = wanted.slice(start, start + IDS_PER_QUERY);
        const soql = `SELECT ${fields.join(', ')} FROM ${sObjectType} WHERE Id IN (${chunk.map((id) => `'${id}'`).join(', ')})`;
        const answer = await api.get<{ records: Array<Record<string, unknown>> }>(`/query?q=${encodeURIComponent(soql)}`);
        for (const record of answer.records) {
          const values: Record<string, string> = {};
          for (const field of fields) {
            const value = text(record[field]);
            if (value !== undefined) values[field] = value;
          }
          if (values.Id !== undefined) found.set(values.Id.slice(0, 15), values);
        }
      }
      return found;
    },
  };
}
