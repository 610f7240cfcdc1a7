import type { Logger } from '../core/logger.ts';
import { normalizeSalesforceId } from '../mapping/salesforce-ids.ts';
import { createBatchLoader } from './batch-loader.ts';
import { type SalesforceDirectory, SalesforceLookupError } from './directory.ts';
import type { SalesforceApi } from './jsforce-connection.ts';

export interface JsforceDirectoryOptions {
  api: SalesforceApi;
  logger: Logger;
  /** SALESFORCE_LOOKUP_CACHE_TTL. */
  cacheTtlMs: number;
  cacheMaxEntries?: number;
  /** Ids per SOQL query; 200 ids keep the query URL far below Salesforce's 16 KB limit. */
  batchSize?: number;
}

interface QueryResult<R> {
  totalSize: number;
  done: boolean;
  records: R[];
}

interface UserRecord {
  Id: string;
  Email?: string | null;
}

const USER_PREFIX = '005';

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // jsforce names its errors after Salesforce's error code (INVALID_SESSION_ID, ERROR_HTTP_503…).
  return error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
}

/** SalesforceDirectory on jsforce: one SOQL query per batch of ids, answers cached in an LRU with a TTL. */
export function createJsforceDirectory(options: JsforceDirectoryOptions): SalesforceDirectory {
  const { api, logger } = options;

  const loadEmails = async (ids: string[]): Promise<Map<string, string>> => {
    // Ids are checked to be 18 alphanumeric characters before they reach the query: no injection.
    const soql = `SELECT Id, Email FROM User WHERE Id IN (${ids.map((id) => `'${id}'`).join(',')})`;
    const started = Date.now();
    let result: QueryResult<UserRecord>;
    try {
      result = await api.get<QueryResult<UserRecord>>(`/query?q=${encodeURIComponent(soql)}`);
    } catch (error) {
      throw new SalesforceLookupError(`Salesforce User lookup failed: ${describeFailure(error)}`, { cause: error });
    }
    logger.debug('salesforce users looked up', { ids: ids.length, found: result.records.length, ms: Date.now() - started });
    const emails = new Map<string, string>();
    for (const record of result.records) {
      const id = normalizeSalesforceId(record.Id);
      if (id !== undefined && typeof record.Email === 'string' && record.Email !== '') emails.set(id, record.Email);
    }
    return emails;
  };

  const loader = createBatchLoader<string>({
    load: loadEmails,
    maxBatch: options.batchSize ?? 200,
    ttlMs: options.cacheTtlMs,
    maxEntries: options.cacheMaxEntries ?? 10_000,
  });

  return {
    async ownerEmails(userIds) {
      const ids = userIds.map(normalizeSalesforceId).filter((id): id is string => id !== undefined && id.startsWith(USER_PREFIX));
      if (ids.length === 0) return new Map();
      return loader.get(ids);
    },
  };
}
