import { storableText } from '../../core/storable.ts';
import { PubSubDecodeError } from './decode-error.ts';

/**
 * A decoded Avro value as JSON both store engines keep unchanged: 64-bit integers (bigint from
 * avro-schema.ts) become numbers when exactly representable and decimal strings otherwise, bytes
 * become base64, strings lose U+0000 (src/core/storable.ts), records and maps become plain
 * objects. Anything else — a non-finite double, a value of a type Avro does not produce — is a
 * PubSubDecodeError naming the field, never a crash further on.
 */
export function storableAvroValue(value: unknown, path: string): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
      return storableText(value);
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      throw invalid(path, `is ${String(value)}, which JSON cannot hold`);
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    case 'object':
      if (Buffer.isBuffer(value)) return value.toString('base64');
      if (Array.isArray(value)) return value.map((entry: unknown, index) => storableAvroValue(entry, `${path}[${index}]`));
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [storableText(key), storableAvroValue(entry, `${path}.${key}`)]));
    default:
      throw invalid(path, `is a ${typeof value}`);
  }
}

function invalid(path: string, what: string): PubSubDecodeError {
  return new PubSubDecodeError('pubsub_value_invalid', `field ${path} ${what}`, { details: { field: path } });
}
