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
  /**
   * The records of a type whose SystemModstamp is at or after `since` (epoch ms), oldest first:
   * what a lost replay id or an overflow event leaves to be read again (docs/protocols.md, Pub/Sub).
   * Each page goes to `each` before the next is read (so a read of millions holds one page);
   * resolves with how many records were read.
   */
  changedSince(sObjectType: string, since: number, each: (page: Array<Record<string, string>>) => Promise<void>): Promise<number>;
}

// One page of a SystemModstamp read.
const CHANGED_PER_QUERY = 2000;

/**
 * Where the page after `last` starts. Pages follow (SystemModstamp, Id), never the stamp alone:
 * one bulk load stamps thousands of records with the same second, and a read resuming "at or
 * after the last stamp" would then stop inside that second, or one resuming "after it" skip the
 * rest of it.
 */
function after(last: Record<string, string>): string | undefined {
  const stamp = last.SystemModstamp === undefined ? Number.NaN : Date.parse(last.SystemModstamp);
  if (Number.isNaN(stamp) || last.Id === undefined || !RECORD_ID.test(last.Id)) return undefined;
  const at = new Date(stamp).toISOString();
  return `(SystemModstamp > ${at} OR (SystemModstamp = ${at} AND Id > '${last.Id}'))`;
}

export function createRecordReader(api: Pick<SalesforceApi, 'get'>, rules: () => MappingRules): RecordReader {
  const textValues = (fields: readonly string[], record: Record<string, unknown>) => {
    const values: Record<string, string> = {};
    for (const field of fields) {
      const value = text(record[field]);
      if (value !== undefined) values[field] = value;
    }
    return values;
  };
  return {
    async changedSince(sObjectType, since, each) {
      if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(sObjectType)) return 0;
      const fields = fieldsToRead(rules(), sObjectType);
      let where: string | undefined = `SystemModstamp >= ${new Date(since).toISOString()}`;
      let read = 0;
      while (where !== undefined) {
        const soql: string = `SELECT ${fields.join(', ')} FROM ${sObjectType} WHERE ${where} ORDER BY SystemModstamp ASC, Id ASC LIMIT ${CHANGED_PER_QUERY}`;
        const answer: { records: Array<Record<string, unknown>> } = await api.get(`/query?q=${encodeURIComponent(soql)}`);
        const page = answer.records.map((record) => textValues(fields, record)).filter((values) => values.Id !== undefined);
        if (page.length > 0) await each(page);
        read += page.length;
        const last = page.at(-1);
        where = answer.records.length < CHANGED_PER_QUERY || last === undefined ? undefined : after(last);
      }
      return read;
    },
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
          const values = textValues(fields, record);
          if (values.Id !== undefined) found.set(values.Id.slice(0, 15), values);
        }
      }
      return found;
    },
  };
}
