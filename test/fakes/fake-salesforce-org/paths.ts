import type { FieldType, Relationship } from './org.ts';
import { type FieldInfo, type ObjectInfo, type OrgRecord, type OrgView, readField } from './org-view.ts';

/**
 * A field path from an object (`Email`, `Owner.Email`, `Contact.Account.Type`): each step but the
 * last is a parent relationship; reading it walks the lookups, and a missing parent reads as null.
 */
export interface FieldPath {
  relationships: Relationship[];
  field: FieldInfo;
  type: FieldType;
  /** The path as the query wrote it, for messages. */
  label: string;
  read(record: OrgRecord): unknown;
}

/** The parent record reached through `relationship`, if its lookup is set and the record exists. */
export function parentRecord(view: OrgView, record: OrgRecord, relationship: Relationship): OrgRecord | undefined {
  const id = readField(record, view.field(view.object(relationship.from), relationship.field));
  return typeof id === 'string' ? view.byId(relationship.to, id) : undefined;
}

export function compilePath(view: OrgView, from: ObjectInfo, dotted: string): FieldPath {
  const steps = dotted.split('.');
  const fieldName = steps.pop() ?? '';
  const relationships: Relationship[] = [];
  let object = from;
  for (const step of steps) {
    const relationship = view.relationship('parent', object, step);
    relationships.push(relationship);
    object = view.object(relationship.to);
  }
  const field = view.field(object, fieldName);
  return {
    relationships,
    field,
    type: field.type,
    label: dotted,
    read(record) {
      let current: OrgRecord | undefined = record;
      for (const relationship of relationships) {
        current = parentRecord(view, current, relationship);
        if (current === undefined) return null;
      }
      return readField(current, field);
    },
  };
}
