import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

import avro from 'avsc';

/**
 * The change-event schemas the fake serves (one JSON file per object under `schemas/`), each as
 * an avsc type whose longs are bigints: `commitNumber` may exceed 2^53, which avsc's default long
 * refuses to represent.
 */

const SCHEMA_FOLDER = new URL('./schemas/', import.meta.url);

/** Avro longs as bigints; numbers are accepted on the way in so tests can write `commitTimestamp: Date.now()`. */
export const bigintLong = avro.types.LongType.__with({
  fromBuffer: (buffer: Buffer) => buffer.readBigInt64LE(),
  toBuffer: (value: bigint | number) => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigInt64LE(BigInt(value));
    return buffer;
  },
  fromJSON: (value: number | string) => BigInt(value),
  toJSON: (value: bigint) => Number(value),
  isValid: (value: unknown) => typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value)),
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

/** Parses an Avro schema the way the fake and its tests both read payloads. */
export function avroType(schema: avro.Schema): avro.Type {
  return avro.Type.forSchema(schema, { registry: { long: bigintLong } });
}

export interface EventSchema {
  /** `OpportunityChangeEvent`, …: the record's name, also the channel's last path segment. */
  name: string;
  /** The object whose changes the schema carries (`Opportunity`). */
  entityName: string;
  json: string;
  /** A fingerprint of the schema, shaped like Salesforce's (22 URL-safe base64 characters). */
  id: string;
  type: avro.types.RecordType;
}

function loadSchema(file: string): EventSchema {
  const json = JSON.stringify(JSON.parse(readFileSync(new URL(file, SCHEMA_FOLDER), 'utf8')));
  const type = avroType(JSON.parse(json) as avro.Schema) as avro.types.RecordType;
  const name = file.replace(/\.json$/, '');
  const id = createHash('md5').update(json).digest('base64url');
  return { name, entityName: name.replace(/ChangeEvent$/, ''), json, id, type };
}

/** Every schema under `schemas/`, by entity name. */
export function loadEventSchemas(): Map<string, EventSchema> {
  const files = readdirSync(SCHEMA_FOLDER).filter((file) => file.endsWith('ChangeEvent.json'));
  return new Map(files.map((file) => loadSchema(file)).map((schema) => [schema.entityName, schema]));
}
