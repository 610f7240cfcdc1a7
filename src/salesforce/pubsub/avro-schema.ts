import avro, { type Type, type types } from 'avsc';

import { PubSubDecodeError } from './decode-error.ts';

const compareBigInts = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Avro `long` read as a bigint, so no 64-bit value is rounded: a header's `commitNumber` can
 * exceed 2^53 (docs/protocols.md, Pub/Sub), and avsc's own long type throws on such values
 * rather than lose precision. Writing accepts a bigint or a safe integer (tests encode payloads).
 */
const BIGINT_LONG = avro.types.LongType.__with({
  fromBuffer: (buffer: Buffer): bigint => buffer.readBigInt64LE(0),
  toBuffer: (value: bigint | number): Buffer => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigInt64LE(BigInt(value));
    return buffer;
  },
  fromJSON: (value: unknown): bigint => BigInt(value as string | number),
  toJSON: (value: bigint): number | string => (Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()),
  isValid: (value: unknown): boolean => typeof value === 'bigint' || Number.isSafeInteger(value),
  compare: compareBigInts,
});

/**
 * An event schema as GetSchema returns it (`schema_json`), parsed with 64-bit longs exact.
 * Unions keep avsc's default, unwrapped where the branches can be told apart: Salesforce's
 * `["null", T]` fields then decode to the value or null, with no `{ "string": … }` wrapper.
 */
export function parseEventSchema(schemaJson: string, schemaId: string): types.RecordType {
  let type: Type;
  try {
    type = avro.Type.forSchema(JSON.parse(schemaJson) as avro.Schema, { registry: { long: BIGINT_LONG } });
  } catch (error) {
    throw new PubSubDecodeError('pubsub_schema_invalid', `schema ${schemaId} is not a valid Avro schema: ${(error as Error).message}`, {
      details: { schemaId },
      cause: error,
    });
  }
  if (type.typeName !== 'record') {
    throw new PubSubDecodeError('pubsub_schema_invalid', `schema ${schemaId} is a ${type.typeName}, not a record`, { details: { schemaId } });
  }
  return type as types.RecordType;
}
