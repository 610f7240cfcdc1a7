import { normalizeSalesforceId } from '../../../src/mapping/salesforce-ids.ts';
import { createSalesforceApi } from '../../../src/salesforce/jsforce-connection.ts';
import { createJsforceCrmDirectory } from '../../../src/salesforce/jsforce-crm-directory.ts';
import { startFakeSalesforceRecords, type Tables } from '../../fakes/fake-salesforce-records.ts';
import { captureLogs } from '../../support/log-capture.ts';

/** A valid 18-character id: `sfId('006', 1)` is an Opportunity (checksum per protocols.md §2). */
export const sfId = (prefix: string, n: number) => normalizeSalesforceId(`${prefix}${String(n).padStart(12, '0')}`)!;

/** The real jsforce attendee directory against a fake Salesforce holding `tables`. */
export async function directoryWith(tables: Tables, options: { cacheTtlMs?: number } = {}) {
  const fake = await startFakeSalesforceRecords(tables);
  const api = createSalesforceApi({
    auth: { flow: 'client-credentials', loginUrl: fake.url, clientId: 'bridge-app', clientSecret: 'right-secret' },
    apiVersion: '62.0',
  });
  const directory = createJsforceCrmDirectory({ api, logger: captureLogs().logger, cacheTtlMs: options.cacheTtlMs ?? 600_000 });
  return { fake, directory };
}

/** Which kinds of lookup the queries were, in order (Contact, Lead, ContactDomain, Website, Opportunity). */
export function queryKinds(queries: readonly string[]): string[] {
  return queries.map((soql) =>
    soql.startsWith('SELECT Id, Email, AccountId, Account.Type, Account.Website FROM Contact')
      ? 'Contact'
      : soql.startsWith('SELECT Id, Email FROM Lead')
        ? 'Lead'
        : soql.startsWith('SELECT AccountId, Account.Type, Email FROM Contact')
          ? 'ContactDomain'
          : soql.startsWith('SELECT Id, Website, Type FROM Account')
            ? 'Website'
            : soql.includes('FROM Opportunity')
              ? 'Opportunity'
              : soql,
  );
}
