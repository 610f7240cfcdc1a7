import type { types } from 'avsc';

import { compoundRecordType, flattenedFieldName } from './compound-fields.ts';
import { PubSubDecodeError } from './decode-error.ts';

const TOP_BITMAP = /^0x([0-9a-f]+)$/i;
const NESTED_BITMAP = /^(\d+)-0x([0-9a-f]+)$/i;

/**
 * Field names from a change event header's `changedFields`, `nulledFields` or `diffFields`
 * (docs/protocols.md, Pub/Sub). Over the Pub/Sub API each list holds hex bitmaps, not names:
 * `0x…` marks the schema's own fields, bit i (least significant first) for Avro field i;
 * `n-0x…` marks the parts of compound field n, bit j for field j of its nested record. The hex
 * string is one big-endian number of any length, so bit 40 of `0x010000000000` is field 40.
 *
 * A compound field marked in the top bitmap is named as itself (`Name`); its parts, from its own
 * entry, by their flattened names (`FirstName`). Every part is listed, even when all are marked,
 * where Salesforce's sample decoder would fold them into the parent: consumers match on part names.
 * An entry that is already a field name (as the Streaming API sends them) is kept as it is.
 * Names come out once each, in the order of the entries and then of the bits.
 */
export function fieldNamesFromBitmaps(record: types.RecordType, entries: readonly string[]): string[] {
  const names = new Set<string>();
  for (const entry of entries) {
    const top = TOP_BITMAP.exec(entry);
    const nested = top ? null : NESTED_BITMAP.exec(entry);
    if (top) {
      for (const index of setBits(top[1] as string)) names.add(fieldAt(record, index, entry).name);
    } else if (nested) {
      const parent = fieldAt(record, Number(nested[1]), entry);
      const compound = compoundRecordType(parent.type);
      if (!compound) throw invalid(`bitmap entry ${entry} names field ${parent.name}, which is not a compound field`, entry);
      for (const index of setBits(nested[2] as string)) names.add(flattenedFieldName(parent.name, fieldAt(compound, index, entry).name));
    } else if (record.fields.some((field) => field.name === entry)) {
      names.add(entry);
    } else {
      throw invalid(`bitmap entry ${JSON.stringify(entry.slice(0, 80))} is neither a bitmap nor a field of ${record.name ?? 'the record'}`, entry);
    }
  }
  return [...names];
}

/** The positions of the 1 bits of a hex number, lowest first. */
export function setBits(hex: string): number[] {
  let value = BigInt(`0x${hex}`);
  const positions: number[] = [];
  for (let position = 0; value > 0n; position += 1, value >>= 1n) {
    if (value & 1n) positions.push(position);
  }
  return positions;
}

function fieldAt(record: types.RecordType, index: number, entry: string): types.Field {
  const field = record.fields[index];
  if (!field) throw invalid(`bitmap entry ${entry} marks field ${index}, but ${record.name ?? 'the record'} has ${record.fields.length} fields`, entry);
  return field;
}

function invalid(message: string, entry: string): PubSubDecodeError {
  return new PubSubDecodeError('pubsub_bitmap_invalid', message, { details: { entry: entry.slice(0, 80) } });
}
