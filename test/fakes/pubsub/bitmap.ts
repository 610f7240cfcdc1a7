import type avro from 'avsc';

/**
 * Salesforce's field bitmaps for `changedFields`, `nulledFields` and `diffFields`: the first
 * element is `0x…`, a hex number whose bit i (least significant first) marks the event schema's
 * Avro field i; each compound field n whose children changed adds `n-0x…`, a bitmap over the
 * compound record's own fields. The compound's bit itself stays clear in the first element ("a
 * bitmap for the individual non-compound fields"). A list with no top-level field omits `0x…`.
 */

function hex(bits: bigint): string {
  const digits = bits.toString(16).toUpperCase();
  // Whole bytes: the vendor's Java decoder parses the digits two at a time.
  return `0x${digits.length % 2 === 0 ? digits : `0${digits}`}`;
}

/** The record type of a `["null", record]` field, when the field is a compound (Name, Address). */
export function compoundType(field: avro.types.Field): avro.types.RecordType | undefined {
  const type = field.type;
  if (type.typeName !== 'union:unwrapped' && type.typeName !== 'union:wrapped') return undefined;
  const branches = (type as avro.types.UnwrappedUnionType).types;
  const record = branches.find((branch) => branch.typeName === 'record');
  return record as avro.types.RecordType | undefined;
}

function indexOf(record: avro.types.RecordType, name: string): number {
  const index = record.fields.findIndex((field) => field.name === name);
  if (index < 0) throw new Error(`${record.name ?? 'record'} has no field ${name}`);
  return index;
}

/**
 * Encodes field names (`Amount`, `Name.FirstName`, or `Name` for every child of a compound) as the
 * bitmap list of the given event schema.
 */
export function fieldBitmap(schema: avro.types.RecordType, names: readonly string[]): string[] {
  let top = 0n;
  const children = new Map<number, bigint>();
  for (const name of names) {
    const [parentName = '', childName] = name.split('.');
    const index = indexOf(schema, parentName);
    const field = schema.fields[index] as avro.types.Field;
    const compound = compoundType(field);
    if (compound === undefined) {
      if (childName !== undefined) throw new Error(`${parentName} is not a compound field`);
      top |= 1n << BigInt(index);
      continue;
    }
    const childIndexes = childName === undefined ? compound.fields.map((_, i) => i) : [indexOf(compound, childName)];
    let bits = children.get(index) ?? 0n;
    for (const childIndex of childIndexes) bits |= 1n << BigInt(childIndex);
    children.set(index, bits);
  }
  const compounds = [...children.entries()].sort(([a], [b]) => a - b).map(([index, bits]) => `${index}-${hex(bits)}`);
  return top === 0n ? compounds : [hex(top), ...compounds];
}
