import type { Type, types } from 'avsc';

/**
 * Compound fields (a Contact's or Lead's `Name`, an `…Address`, a geolocation) arrive in a change
 * event as a nested record (docs/protocols.md, Pub/Sub). The bridge names their parts as the
 * REST API and SOQL name the object's own fields, so a change reads like a record read by id:
 * - `Name` parts keep their names: `Name.FirstName` is `FirstName`;
 * - an address's parts take the address's prefix: `BillingAddress.Street` is `BillingStreet`,
 *   and a Lead's plain `Address.City` is `City`;
 * - a custom geolocation's parts are `Loc__Latitude__s` for `Loc__c.Latitude`;
 * - any other compound keeps the `Parent.Child` form change event headers use.
 */
export function flattenedFieldName(parent: string, child: string): string {
  if (parent === 'Name') return child;
  if (parent.endsWith('Address')) return `${parent.slice(0, -'Address'.length)}${child}`;
  if (parent.endsWith('__c')) return `${parent.slice(0, -'__c'.length)}__${child}__s`;
  return `${parent}.${child}`;
}

/**
 * The record type of a compound field, through the unions Salesforce wraps it in: `["null", R]`
 * for an optional one, and `["string", R]` / `["null", "string", R]` for a switchable person name
 * (an Account's `Name` is a plain string for a business account, a record for a person account).
 */
export function compoundRecordType(type: Type): types.RecordType | undefined {
  if (type.typeName === 'record') return type as types.RecordType;
  if (type.typeName.startsWith('union')) {
    const branches = (type as types.UnwrappedUnionType).types;
    const record = branches.find((branch) => branch.typeName === 'record');
    const others = branches.filter((branch) => branch !== record);
    if (record && others.every((branch) => branch.typeName === 'null' || branch.typeName === 'string')) return record as types.RecordType;
  }
  return undefined;
}
