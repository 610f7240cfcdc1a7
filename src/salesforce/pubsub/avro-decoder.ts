import type { types } from 'avsc';

import { type ChangeEventHeader, HEADER_FIELD, readChangeHeader } from './change-header.ts';
import { compoundRecordType, flattenedFieldName } from './compound-fields.ts';
import { PubSubDecodeError } from './decode-error.ts';
import type { ProducerEvent } from './pubsub-messages.ts';
import { createSchemaCache, type FetchSchema } from './schema-cache.ts';
import { storableAvroValue } from './storable-avro.ts';

export type { ChangeEventHeader, ChangeType } from './change-header.ts';

/** One Change Data Capture event, decoded (docs/protocols.md, Pub/Sub). */
export interface DecodedChange {
  header: ChangeEventHeader;
  /**
   * The record's fields that carry a value: over the Pub/Sub API every field is present and the
   * unchanged ones are null, so only non-null ones are kept. Compound parts are flattened to the
   * names the REST API uses (compound-fields.ts); values are storable (storable-avro.ts). A
   * date-time (`Data:DateTime`) or date (`Data:DateOnly`) arrives as epoch milliseconds and is
   * kept as the ISO 8601 text the REST API and Outbound Messages carry (`2026-03-02T16:00:00.000Z`,
   * `2026-06-30`), so the mapping reads one format whichever source stored the record.
   */
  fields: Record<string, unknown>;
}

export interface ChangeDecoder {
  /** Decodes one event's payload with its schema, fetching the schema once per schema id. */
  decode(event: Pick<ProducerEvent, 'schema_id' | 'payload'>): Promise<DecodedChange>;
}

/** `fetchSchema` is the client's getSchema; schemas are cached for the decoder's lifetime. */
export function createChangeDecoder(fetchSchema: FetchSchema): ChangeDecoder {
  const schemaFor = createSchemaCache(fetchSchema);
  return {
    decode: async (event) => decodeChange(await schemaFor(event.schema_id), event.payload, event.schema_id),
  };
}

/** Decodes a raw Avro datum (no container, no header) of a change event schema. */
export function decodeChange(schema: types.RecordType, payload: Buffer, schemaId = ''): DecodedChange {
  if (schema.fields[0]?.name !== HEADER_FIELD) {
    throw new PubSubDecodeError('pubsub_header_invalid', `schema ${schemaId} is not a change event schema: its first field is not ${HEADER_FIELD}`, {
      details: { schemaId },
    });
  }
  let record: Record<string, unknown>;
  try {
    record = schema.fromBuffer(payload) as Record<string, unknown>;
  } catch (error) {
    throw new PubSubDecodeError('pubsub_payload_invalid', `payload of ${payload.length} bytes does not match schema ${schemaId}: ${(error as Error).message}`, {
      details: { schemaId },
      cause: error,
    });
  }
  return { header: readChangeHeader(schema, record[HEADER_FIELD]), fields: recordFields(schema, record) };
}

function recordFields(schema: types.RecordType, record: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const field of schema.fields.slice(1)) {
    const value = record[field.name];
    if (value === null || value === undefined) continue;
    const compound = compoundRecordType(field.type);
    // A switchable person name is a plain string for a business account: kept under its own name.
    if (compound && typeof value === 'object' && !Buffer.isBuffer(value)) {
      for (const part of compound.fields) {
        const partValue = (value as Record<string, unknown>)[part.name];
        const name = flattenedFieldName(field.name, part.name);
        if (partValue !== null && partValue !== undefined) fields[name] = storableAvroValue(partValue, name);
      }
    } else {
      fields[field.name] = salesforceTime(field, value) ?? storableAvroValue(value, field.name);
    }
  }
  return fields;
}

// Salesforce names a field's data type in the schema's `doc` (docs/protocols.md, Pub/Sub).
function salesforceTime(field: types.Field, value: unknown): string | undefined {
  const doc = (field as types.Field & { doc?: string }).doc;
  if (doc !== 'Data:DateTime' && doc !== 'Data:DateOnly') return undefined;
  const ms = typeof value === 'bigint' || typeof value === 'number' ? Number(value) : NaN;
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > 8.64e15) return undefined;
  const iso = new Date(ms).toISOString();
  return doc === 'Data:DateOnly' ? iso.slice(0, 10) : iso;
}
