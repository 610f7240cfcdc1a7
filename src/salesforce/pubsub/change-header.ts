import type { types } from 'avsc';

import { PubSubDecodeError } from './decode-error.ts';
import { fieldNamesFromBitmaps } from './field-bitmap.ts';

export const CHANGE_TYPES = ['CREATE', 'UPDATE', 'DELETE', 'UNDELETE', 'GAP_CREATE', 'GAP_UPDATE', 'GAP_DELETE', 'GAP_UNDELETE', 'GAP_OVERFLOW'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** A change event's header, with the bitmaps read into field names (docs/protocols.md, Pub/Sub). */
export interface ChangeEventHeader {
  entityName: string;
  /** Several ids for a merge; a wildcard such as `001*` or `000000000000000AAA` for an overflow. */
  recordIds: string[];
  changeType: ChangeType;
  /** `com/salesforce/api/<api>/<version>;client=<id>` when an API client made the change: how own writes are told apart. */
  changeOrigin: string;
  transactionKey: string;
  sequenceNumber: number;
  /** Epoch milliseconds: well inside a double's exact range. */
  commitTimestamp: number;
  /** A decimal string: it can exceed 2^53. */
  commitNumber: string;
  commitUser: string;
  changedFields: string[];
  nulledFields: string[];
  diffFields: string[];
}

export const HEADER_FIELD = 'ChangeEventHeader';

/** The header of a decoded event of `schema`, checked field by field. */
export function readChangeHeader(schema: types.RecordType, raw: unknown): ChangeEventHeader {
  if (raw === null || typeof raw !== 'object') throw invalid(`${HEADER_FIELD} is missing`);
  const header = raw as Record<string, unknown>;
  const changeType = text(header, 'changeType');
  if (!(CHANGE_TYPES as readonly string[]).includes(changeType)) throw invalid(`changeType ${changeType.slice(0, 40)} is not one the bridge handles`);
  return {
    entityName: text(header, 'entityName'),
    recordIds: texts(header, 'recordIds'),
    changeType: changeType as ChangeType,
    changeOrigin: text(header, 'changeOrigin'),
    transactionKey: text(header, 'transactionKey'),
    sequenceNumber: integer(header, 'sequenceNumber'),
    commitTimestamp: integer(header, 'commitTimestamp'),
    commitNumber: bigInteger(header, 'commitNumber'),
    commitUser: text(header, 'commitUser'),
    changedFields: fieldNamesFromBitmaps(schema, texts(header, 'changedFields')),
    nulledFields: fieldNamesFromBitmaps(schema, texts(header, 'nulledFields')),
    diffFields: fieldNamesFromBitmaps(schema, texts(header, 'diffFields')),
  };
}

function text(header: Record<string, unknown>, name: string): string {
  const value = header[name];
  if (typeof value !== 'string') throw invalid(`${name} is not a string`);
  return value;
}

function texts(header: Record<string, unknown>, name: string): string[] {
  const value = header[name];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) throw invalid(`${name} is not a list of strings`);
  return value as string[];
}

function integer(header: Record<string, unknown>, name: string): number {
  const value = header[name];
  const number = typeof value === 'bigint' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number)) throw invalid(`${name} is not an integer below 2^53`);
  return number;
}

function bigInteger(header: Record<string, unknown>, name: string): string {
  const value = header[name];
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  throw invalid(`${name} is not an integer`);
}

function invalid(message: string): PubSubDecodeError {
  return new PubSubDecodeError('pubsub_header_invalid', `change event header: ${message}`);
}
