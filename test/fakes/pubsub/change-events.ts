import { randomUUID } from 'node:crypto';

import type { EventSchema } from './avro.ts';
import { compoundType, fieldBitmap } from './bitmap.ts';

/**
 * Change Data Capture events as a test writes them, and their Avro payloads as Salesforce sends
 * them: every field of the schema present, the ones the change does not carry null, and the
 * changed/nulled/diff field lists encoded as bitmaps.
 */

export type ChangeType = 'CREATE' | 'UPDATE' | 'DELETE' | 'UNDELETE' | 'GAP_CREATE' | 'GAP_UPDATE' | 'GAP_DELETE' | 'GAP_UNDELETE' | 'GAP_OVERFLOW';

export type GapChangeType = 'GAP_CREATE' | 'GAP_UPDATE' | 'GAP_DELETE' | 'GAP_UNDELETE';

export interface ChangeHeaderInput {
  entityName: string;
  /** Several ids when Salesforce merged changes to several records into one event. */
  recordIds: string[];
  changeType: ChangeType;
  changeOrigin?: string;
  transactionKey?: string;
  sequenceNumber?: number;
  commitTimestamp?: number | bigint;
  /** May exceed 2^53, hence a bigint (numbers are accepted too). */
  commitNumber?: bigint | number;
  commitUser?: string;
  /** Field names (`Amount`, `Name.FirstName`, `Name` for a whole compound); by default, for an UPDATE, the fields given. */
  changedFields?: string[];
  /** By default, for an UPDATE, the fields given as null. */
  nulledFields?: string[];
  diffFields?: string[];
}

export interface ChangeInput {
  header: ChangeHeaderInput;
  /** Field values by Avro field name; a compound field is an object of its children (`{ FirstName: 'Ada' }`). */
  fields?: Record<string, unknown>;
}

/** The id Salesforce puts in an overflow event's `recordIds`: "re-read the whole entity". */
export const OVERFLOW_RECORD_ID = '000000000000000AAA';

/** What the fake fills in for header fields a test leaves out. */
export interface HeaderDefaults {
  now(): number;
  nextCommitNumber(): bigint;
}

/** A header-only gap event (the record must be read back by id). */
export function gapChange(entityName: string, changeType: GapChangeType, recordIds: string[], header: Partial<ChangeHeaderInput> = {}): ChangeInput {
  return { header: { ...header, entityName, recordIds, changeType } };
}

/** The overflow events of one large transaction: one per entity, naming no record. */
export function overflowChanges(entityNames: string[], header: Partial<ChangeHeaderInput> = {}): ChangeInput[] {
  const transactionKey = header.transactionKey ?? randomUUID();
  return entityNames.map((entityName) => ({ header: { ...header, transactionKey, entityName, recordIds: [OVERFLOW_RECORD_ID], changeType: 'GAP_OVERFLOW' } }));
}

/** `Name.FirstName` for each child a compound value carries; the field's own name otherwise. */
function givenFieldNames(schema: EventSchema, fields: Record<string, unknown>, onlyNull: boolean): string[] {
  const names: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const field = schema.type.field(name);
    const compound = field === undefined ? undefined : compoundType(field);
    if (compound !== undefined && value !== null && typeof value === 'object') {
      for (const [child, childValue] of Object.entries(value)) if (!onlyNull || childValue === null) names.push(`${name}.${child}`);
    } else if (!onlyNull || value === null) names.push(name);
  }
  return names;
}

function payloadFields(schema: EventSchema, fields: Record<string, unknown>): Record<string, unknown> {
  const known = new Set(schema.type.fields.map((field) => field.name));
  for (const name of Object.keys(fields)) {
    if (name === 'ChangeEventHeader' || !known.has(name)) throw new Error(`${schema.name} has no field ${name}`);
  }
  const record: Record<string, unknown> = {};
  for (const field of schema.type.fields.slice(1)) {
    const value = fields[field.name];
    const compound = compoundType(field);
    // Every child of a compound is present in the payload; the ones the change does not carry are null.
    record[field.name] =
      compound !== undefined && value !== null && typeof value === 'object'
        ? Object.fromEntries(compound.fields.map((child) => [child.name, (value as Record<string, unknown>)[child.name] ?? null]))
        : (value ?? null);
  }
  return record;
}

/** The Avro datum of a change, as a Pub/Sub ProducerEvent payload carries it. */
export function encodeChange(schema: EventSchema, change: ChangeInput, defaults: HeaderDefaults): Buffer {
  const { header } = change;
  const fields = change.fields ?? {};
  if (header.changeType.startsWith('GAP_') && Object.keys(fields).length > 0) throw new Error('gap events carry only the header');
  const isUpdate = header.changeType === 'UPDATE';
  const changed = header.changedFields ?? (isUpdate ? givenFieldNames(schema, fields, false) : []);
  const nulled = header.nulledFields ?? (isUpdate ? givenFieldNames(schema, fields, true) : []);
  const datum = {
    ChangeEventHeader: {
      entityName: header.entityName,
      recordIds: header.recordIds,
      changeType: header.changeType,
      changeOrigin: header.changeOrigin ?? '',
      transactionKey: header.transactionKey ?? randomUUID(),
      sequenceNumber: header.sequenceNumber ?? 1,
      commitTimestamp: BigInt(header.commitTimestamp ?? defaults.now()),
      commitNumber: header.commitNumber === undefined ? defaults.nextCommitNumber() : BigInt(header.commitNumber),
      commitUser: header.commitUser ?? '005000000000001AAA',
      nulledFields: fieldBitmap(schema.type, nulled),
      diffFields: fieldBitmap(schema.type, header.diffFields ?? []),
      changedFields: fieldBitmap(schema.type, changed),
    },
    ...payloadFields(schema, fields),
  };
  return schema.type.toBuffer(datum);
}
