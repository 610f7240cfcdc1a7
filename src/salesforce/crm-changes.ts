import type { Logger } from '../core/logger.ts';
import { SalesforceLookupError } from './directory.ts';
import type { SalesforceApi } from './jsforce-connection.ts';

/**
 * What changed in Salesforce since a point in time (docs/calendars.md, re-matching): the sweep's
 * backstop, so re-matching works with no Outbound Message set up. Every record carries
 * SystemModstamp, which moves on every change (also by automation), and can be filtered and
 * ordered on, so each object is read in SystemModstamp order from a stored watermark.
 */

export const SWEPT_OBJECTS = {
  Opportunity: ['Id', 'AccountId'],
  OpportunityContactRole: ['Id', 'OpportunityId', 'ContactId'],
  Contact: ['Id', 'Email', 'AccountId'],
  Lead: ['Id', 'Email', 'IsConverted', 'ConvertedAccountId', 'ConvertedOpportunityId'],
} as const;

export type SweptObject = keyof typeof SWEPT_OBJECTS;

export interface ChangedRecord {
  /** Field values as text, as an Outbound Message carries them (so one reading serves both paths). */
  fields: Record<string, string>;
  systemModstamp: string;
}

export interface CrmChanges {
  /** Up to `limit` records of `object` changed after `since` (a sweep position), oldest change first. */
  changedSince(object: SweptObject, since: string, limit: number): Promise<ChangedRecord[]>;
}

/**
 * A sweep's position: the SystemModstamp read up to and the Id of the last record read at it,
 * as the stored watermark's text (`<instant> <id>`; a watermark of an instant alone reads after it).
 * Reads follow (SystemModstamp, Id): a bulk update stamps hundreds of records with one second, and
 * a page ending inside that second must resume inside it, not after it.
 */
export interface SweepPosition {
  modstamp: string;
  afterId?: string;
}

const RECORD_ID = /^[0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?$/;

export const positionText = (position: SweepPosition): string =>
  position.afterId === undefined ? position.modstamp : `${position.modstamp} ${position.afterId}`;

export function parsePosition(text: string): SweepPosition {
  const [modstamp = '', afterId] = text.split(' ');
  return afterId === undefined ? { modstamp } : { modstamp, afterId };
}

// A SOQL datetime literal is unquoted ISO 8601; only instants the bridge wrote reach here, checked all the same.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})$/;

export function createJsforceCrmChanges(api: SalesforceApi, logger: Logger): CrmChanges {
  return {
    async changedSince(object, since, limit) {
      const { modstamp, afterId } = parsePosition(since);
      if (!INSTANT.test(modstamp) || (afterId !== undefined && !RECORD_ID.test(afterId)))
        throw new SalesforceLookupError(`sweep: ${since} is not a position (an instant, then an id)`);
      const fields = [...SWEPT_OBJECTS[object], 'SystemModstamp'];
      const after =
        afterId === undefined ? `SystemModstamp > ${modstamp}` : `(SystemModstamp > ${modstamp} OR (SystemModstamp = ${modstamp} AND Id > '${afterId}'))`;
      const soql = `SELECT ${fields.join(', ')} FROM ${object} WHERE ${after} ORDER BY SystemModstamp ASC, Id ASC LIMIT ${Math.trunc(limit)}`;
      let rows: Array<Record<string, unknown>>;
      try {
        rows = (await api.get<{ records: Array<Record<string, unknown>> }>(`/query?q=${encodeURIComponent(soql)}`)).records;
      } catch (error) {
        throw new SalesforceLookupError(`Salesforce ${object} sweep failed: ${(error as Error).message}`, { cause: error });
      }
      logger.debug('salesforce sweep read', { object, since, found: rows.length });
      return rows.flatMap((row) => {
        const stamp = typeof row.SystemModstamp === 'string' ? row.SystemModstamp : undefined;
        if (stamp === undefined) return [];
        const text = Object.fromEntries(
          Object.entries(row).flatMap(([name, value]) => (typeof value === 'string' || typeof value === 'boolean' ? [[name, String(value)]] : [])),
        );
        return [{ fields: text, systemModstamp: stamp }];
      });
    },
  };
}
