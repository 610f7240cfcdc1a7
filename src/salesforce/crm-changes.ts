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
  /** Up to `limit` records of `object` changed after `since` (an ISO instant), oldest change first. */
  changedSince(object: SweptObject, since: string, limit: number): Promise<ChangedRecord[]>;
}

// A SOQL datetime literal is unquoted ISO 8601; only instants the bridge wrote reach here, checked all the same.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})$/;

export function createJsforceCrmChanges(api: SalesforceApi, logger: Logger): CrmChanges {
  return {
    async changedSince(object, since, limit) {
      if (!INSTANT.test(since)) throw new SalesforceLookupError(`sweep: ${since} is not an instant`);
      const fields = [...SWEPT_OBJECTS[object], 'SystemModstamp'];
      const soql = `SELECT ${fields.join(', ')} FROM ${object} WHERE SystemModstamp > ${since} ORDER BY SystemModstamp ASC LIMIT ${Math.trunc(limit)}`;
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
