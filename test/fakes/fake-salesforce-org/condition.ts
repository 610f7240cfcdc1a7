import type { Condition, LiteralType } from '@jetstreamapp/soql-parser-js';

import { dateLiteralRange, dateMs, type DateRange, dateTimeMs, likePattern, stringLiteral } from './literals.ts';
import { idKey, type OrgRecord } from './org-view.ts';
import type { FieldPath } from './paths.ts';
import { SoqlError, unsupported } from './soql-error.ts';

/**
 * One WHERE condition (`field operator value`) as a predicate over records. Strings compare
 * case-insensitively, ids on their first 15 characters, dates and datetimes as instants; `=` and
 * `!=` treat null as a value (so `Type != 'Partner'` keeps records without a Type), the ordering
 * operators and LIKE never match null; a checkbox is never null (docs/protocols.md §2 "SOQL").
 */
export type Predicate = (record: OrgRecord) => boolean;
type Scalar = string | number | boolean | null;

const ID = /^[0-9A-Za-z]{15}([0-9A-Za-z]{3})?$/;
const isRange = (value: Scalar | DateRange): value is DateRange => typeof value === 'object' && value !== null;

/** A record's value in the form literals compare with. */
export function comparable(path: FieldPath, value: unknown): Scalar {
  if (value === null || value === undefined) return null;
  if (path.type === 'boolean') return value === true;
  if (path.type === 'number') return typeof value === 'number' ? value : Number(value);
  if (path.type === 'date' || path.type === 'datetime') {
    const ms = typeof value === 'string' ? (path.type === 'date' ? dateMs(value) : dateTimeMs(value)) : undefined;
    // A malformed org is a defect of the test: a 500 says so, where an empty answer would hide it.
    if (ms === undefined) throw new Error(`the org holds ${JSON.stringify(value)} in the ${path.type} field ${path.label}`);
    return ms;
  }
  const text = String(value);
  return path.type === 'id' ? idKey(text) : text.toLowerCase();
}

function literal(path: FieldPath, type: LiteralType | undefined, raw: string, now: number): Scalar | DateRange {
  // A checkbox is never null: `= null` on one means `= false`.
  if (type === 'NULL') return path.type === 'boolean' ? false : null;
  const wrongType = () =>
    new SoqlError(
      'INVALID_FIELD',
      `value of filter criterion for field '${path.label}' must be of type ${path.type} and should ${path.type === 'string' || path.type === 'id' ? '' : 'not '}be enclosed in quotes`,
    );
  switch (path.type) {
    case 'id': {
      if (type !== 'STRING') throw wrongType();
      const id = stringLiteral(raw);
      if (!ID.test(id)) throw new SoqlError('INVALID_QUERY_FILTER_OPERATOR', `invalid ID field: ${id}`);
      return idKey(id);
    }
    case 'string':
      if (type !== 'STRING') throw wrongType();
      return stringLiteral(raw).toLowerCase();
    case 'boolean':
      if (type !== 'BOOLEAN') throw wrongType();
      return raw.toUpperCase() === 'TRUE';
    case 'number':
      if (type !== 'INTEGER' && type !== 'DECIMAL') throw wrongType();
      return Number(raw);
    case 'date':
    case 'datetime': {
      if (type === 'DATE_LITERAL' || type === 'DATE_N_LITERAL') return dateLiteralRange(raw, now);
      const ms = path.type === 'date' ? (type === 'DATE' ? dateMs(raw) : undefined) : type === 'DATETIME' ? dateTimeMs(raw) : undefined;
      if (ms === undefined) throw wrongType();
      return ms;
    }
  }
}

function compare(operator: string, value: Scalar, target: Scalar | DateRange): boolean {
  if (isRange(target)) {
    const inside = value !== null && typeof value === 'number' && value >= target.start && value < target.end;
    if (operator === '=') return inside;
    if (operator === '!=') return !inside;
    if (value === null) return false;
    if (operator === '<') return (value as number) < target.start;
    if (operator === '<=') return (value as number) < target.end;
    if (operator === '>') return (value as number) >= target.end;
    return (value as number) >= target.start;
  }
  if (operator === '=') return value === target;
  if (operator === '!=') return value !== target;
  if (value === null || target === null) return false;
  if (operator === '<') return value < target;
  if (operator === '<=') return value <= target;
  if (operator === '>') return value > target;
  return value >= target;
}

export function compileCondition(path: FieldPath, condition: Condition, now: number): Predicate {
  if (!('value' in condition) || !('field' in condition)) throw unsupported('this condition');
  const { operator, value } = condition;
  const typeAt = (i: number) => (Array.isArray(condition.literalType) ? condition.literalType[i] : condition.literalType);
  if (operator === 'INCLUDES' || operator === 'EXCLUDES') throw unsupported(`${operator} (multi-select picklists)`);
  if (operator === 'IN' || operator === 'NOT IN') {
    const values = (Array.isArray(value) ? value : [value]).map((raw, i) => literal(path, typeAt(i), raw, now));
    if (values.some(isRange)) throw unsupported(`a date literal inside ${operator}`);
    const wanted = new Set(values as Scalar[]);
    return (record) => wanted.has(comparable(path, path.read(record))) === (operator === 'IN');
  }
  if (Array.isArray(value)) throw new SoqlError('MALFORMED_QUERY', `${operator} takes one value, not a list, for ${path.label}`);
  if (operator === 'LIKE') {
    if (path.type !== 'string') throw new SoqlError('INVALID_QUERY_FILTER_OPERATOR', `invalid operator on ${path.type} field: LIKE on ${path.label}`);
    if (typeAt(0) !== 'STRING') throw new SoqlError('INVALID_FIELD', `LIKE on ${path.label} needs a quoted pattern`);
    const pattern = likePattern(value);
    return (record) => {
      const text = path.read(record);
      return text !== null && pattern.test(String(text));
    };
  }
  const target = literal(path, typeAt(0), value, now);
  if (path.type === 'boolean' && operator !== '=' && operator !== '!=') {
    throw new SoqlError('INVALID_QUERY_FILTER_OPERATOR', `invalid operator on boolean field: ${operator} on ${path.label}`);
  }
  return (record) => compare(operator, comparable(path, path.read(record)), target);
}
