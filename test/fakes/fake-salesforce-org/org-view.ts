import { type FieldType, type JsonOrg, type Relationship, RELATIONSHIPS, STANDARD_FIELDS } from './org.ts';
import { SoqlError } from './soql-error.ts';

/**
 * One query's view of the live org: names resolved case-insensitively (SOQL ignores case in object,
 * field and relationship names) to the spelling the answer uses, and records indexed by id for the
 * query's lookups. Built per query, so records a test changed between queries are seen.
 */
export type OrgRecord = Record<string, unknown>;

export interface FieldInfo {
  /** As the org's records write it, else as Salesforce spells the standard field. */
  name: string;
  type: FieldType;
}

export interface ObjectInfo {
  name: string;
  fields: Map<string, FieldInfo>;
}

export interface OrgView {
  object(name: string): ObjectInfo;
  field(object: ObjectInfo, name: string): FieldInfo;
  relationship(kind: Relationship['kind'], object: ObjectInfo, name: string): Relationship;
  rows(object: string): OrgRecord[];
  byId(object: string, id: string): OrgRecord | undefined;
  /** The `object` records whose `field` holds `id`. */
  referring(object: string, field: string, id: string): OrgRecord[];
}

/** Ids compare on their first 15 characters, case-sensitively (docs/protocols.md §2 "Record ids"). */
export const idKey = (id: string) => id.slice(0, 15);

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

function inferType(value: unknown): FieldType {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string' && DATE.test(value)) return 'date';
  if (typeof value === 'string' && DATETIME.test(value)) return 'datetime';
  return 'string';
}

/** A record's value of a field, whatever the case of the record's key; checkboxes are never null. */
export function readField(record: OrgRecord, field: FieldInfo): unknown {
  let value = Object.hasOwn(record, field.name) ? record[field.name] : undefined;
  if (value === undefined) {
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === field.name.toLowerCase());
    value = key === undefined ? undefined : record[key];
  }
  if (field.type === 'boolean') return value === true;
  return value ?? null;
}

export function createOrgView(org: JsonOrg): OrgView {
  const objects = new Map<string, ObjectInfo>();
  const idIndexes = new Map<string, Map<string, OrgRecord>>();
  const referringIndexes = new Map<string, Map<string, OrgRecord[]>>();

  const orgKey = (name: string) => Object.keys(org).find((key) => key.toLowerCase() === name.toLowerCase());
  const rows = (name: string): OrgRecord[] => {
    const key = orgKey(name);
    return key === undefined ? [] : (org[key] ?? []);
  };

  function object(name: string): ObjectInfo {
    const known = objects.get(name.toLowerCase());
    if (known !== undefined) return known;
    const standardName = Object.keys(STANDARD_FIELDS).find((key) => key.toLowerCase() === name.toLowerCase());
    const canonical = standardName ?? orgKey(name);
    if (canonical === undefined) throw new SoqlError('INVALID_TYPE', `sObject type '${name}' is not supported.`);
    const standard = STANDARD_FIELDS[canonical] ?? {};
    const fields = new Map<string, FieldInfo>(Object.entries(standard).map(([field, type]) => [field.toLowerCase(), { name: field, type }]));
    // The first record's spelling of a field wins; a field no standard list declares takes its type from its first non-null value.
    const spelled = new Set<string>();
    const typed = new Set(fields.keys());
    for (const record of rows(canonical)) {
      for (const [key, value] of Object.entries(record)) {
        const lower = key.toLowerCase();
        const current = fields.get(lower);
        const name = spelled.has(lower) && current !== undefined ? current.name : key;
        spelled.add(lower);
        let type = current?.type ?? 'string';
        if (!typed.has(lower) && value !== null && value !== undefined) {
          type = inferType(value);
          typed.add(lower);
        }
        fields.set(lower, { name, type });
      }
    }
    const info = { name: canonical, fields };
    objects.set(name.toLowerCase(), info);
    return info;
  }

  function field(info: ObjectInfo, name: string): FieldInfo {
    const found = info.fields.get(name.toLowerCase());
    if (found === undefined) throw new SoqlError('INVALID_FIELD', `No such column '${name}' on entity '${info.name}'.`);
    return found;
  }

  function relationship(kind: Relationship['kind'], info: ObjectInfo, name: string): Relationship {
    const found = RELATIONSHIPS.find(
      (candidate) => candidate.kind === kind && candidate.from === info.name && candidate.name.toLowerCase() === name.toLowerCase(),
    );
    if (found !== undefined) return found;
    if (kind === 'parent') throw new SoqlError('INVALID_FIELD', `Didn't understand relationship '${name}' in field path of entity '${info.name}'.`);
    throw new SoqlError('INVALID_TYPE', `Didn't understand relationship '${name}' in FROM part of query call on entity '${info.name}'.`);
  }

  function byId(name: string, id: string): OrgRecord | undefined {
    const info = object(name);
    let index = idIndexes.get(info.name);
    if (index === undefined) {
      const idField = field(info, 'Id');
      index = new Map();
      for (const record of rows(info.name)) {
        const value = readField(record, idField);
        if (typeof value === 'string' && !index.has(idKey(value))) index.set(idKey(value), record);
      }
      idIndexes.set(info.name, index);
    }
    return index.get(idKey(id));
  }

  function referring(name: string, fieldName: string, id: string): OrgRecord[] {
    const info = object(name);
    const key = `${info.name}.${fieldName}`;
    let index = referringIndexes.get(key);
    if (index === undefined) {
      const reference = field(info, fieldName);
      index = new Map();
      for (const record of rows(info.name)) {
        const value = readField(record, reference);
        if (typeof value === 'string') index.set(idKey(value), [...(index.get(idKey(value)) ?? []), record]);
      }
      referringIndexes.set(key, index);
    }
    return index.get(idKey(id)) ?? [];
  }

  return { object, field, relationship, rows, byId, referring };
}
