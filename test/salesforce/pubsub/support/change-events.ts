import { readFileSync } from 'node:fs';

import type { types } from 'avsc';

import { parseEventSchema } from '../../../../src/salesforce/pubsub/avro-schema.ts';

export type CdcObject = 'Opportunity' | 'Event' | 'OpportunityContactRole' | 'Contact' | 'Lead';

/** The JSON text of a CDC-shaped schema from test/fakes/pubsub/schemas, as GetSchema would send it. */
export function schemaJson(object: CdcObject): string {
  return readFileSync(new URL(`../../../fakes/pubsub/schemas/${object}ChangeEvent.json`, import.meta.url), 'utf8');
}

export function cdcSchema(object: CdcObject): types.RecordType {
  return parseEventSchema(schemaJson(object), `${object}-schema`);
}

export interface HeaderValues {
  entityName: string;
  recordIds: string[];
  changeType: string;
  changeOrigin: string;
  transactionKey: string;
  sequenceNumber: number;
  commitTimestamp: bigint;
  commitNumber: bigint;
  commitUser: string;
  nulledFields: string[];
  diffFields: string[];
  changedFields: string[];
}

export function header(overrides: Partial<HeaderValues> = {}): HeaderValues {
  return {
    entityName: 'Opportunity',
    recordIds: ['006000000000001AAA'],
    changeType: 'UPDATE',
    changeOrigin: 'com/salesforce/api/rest/62.0;client=SfdcInternalAPI/',
    transactionKey: '00006bec-ce66-0611-9018-30a98446c9f2',
    sequenceNumber: 1,
    commitTimestamp: 1714156685000n,
    commitNumber: 1100670838951n,
    commitUser: '005000000000001AAA',
    nulledFields: [],
    diffFields: [],
    changedFields: [],
    ...overrides,
  };
}

/** A raw Avro datum as Salesforce sends one: every field present, the ones not given null. */
export function encodeChange(schema: types.RecordType, values: { header?: Partial<HeaderValues>; fields?: Record<string, unknown> }): Buffer {
  const record: Record<string, unknown> = Object.fromEntries(schema.fields.map((field) => [field.name, null]));
  record.ChangeEventHeader = header(values.header);
  Object.assign(record, values.fields);
  return schema.toBuffer(record);
}
