import type { types } from 'avsc';

import { parseEventSchema } from './avro-schema.ts';
import type { SchemaInfo } from './pubsub-messages.ts';

export type FetchSchema = (schemaId: string) => Promise<SchemaInfo>;

/**
 * Parsed event schemas by schema id. A schema id is a fingerprint of its schema, so a cached
 * schema never goes stale; a new one appears only when the object's fields change, so the map
 * stays small. Every event carries its schema id, and a batch of 100 events usually shares one:
 * callers asking for an id already being fetched share that fetch. A failed fetch or parse is
 * forgotten, so the next event asks again instead of failing forever on one bad moment.
 */
export function createSchemaCache(fetchSchema: FetchSchema): (schemaId: string) => Promise<types.RecordType> {
  const schemas = new Map<string, Promise<types.RecordType>>();
  return (schemaId) => {
    const known = schemas.get(schemaId);
    if (known) return known;
    const loading = fetchSchema(schemaId).then((info) => parseEventSchema(info.schema_json, schemaId));
    schemas.set(schemaId, loading);
    loading.catch(() => schemas.delete(schemaId));
    return loading;
  };
}
