import type { Logger } from '../core/logger.ts';
import { normalizeSalesforceId } from '../mapping/salesforce-ids.ts';
import { hostMatch, websiteHost } from '../matching/account-evidence.ts';
import type { ContactRecord, CrmDirectory, DomainAccount, LeadRecord, OpportunityRecord } from '../matching/directory.ts';
import { createBatchLoader } from './batch-loader.ts';
import { SalesforceLookupError } from './directory.ts';
import type { SalesforceApi } from './jsforce-connection.ts';
import { opportunityOf, type Rec } from './opportunity-rows.ts';

export interface JsforceCrmDirectoryOptions {
  api: SalesforceApi;
  logger: Logger;
  /** SALESFORCE_LOOKUP_CACHE_TTL: answers (and absences) are reused for this long. */
  cacheTtlMs: number;
  cacheMaxEntries?: number;
  /** Read opportunity team members too (the mapping file's matching.opportunityTeams; orgs without teams refuse the query). */
  opportunityTeams?: boolean;
}

// Quoted SOQL literal. Emails are already checked by normaliseEmail and domains by DOMAIN; the
// escape is the second fence against injection.
const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const DOMAIN = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const id18 = (value: unknown) => (typeof value === 'string' ? normalizeSalesforceId(value) : undefined);
const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : '');
const textOrNull = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
const account = (row: Rec) => (row.Account ?? null) as Rec | null;

function groupBy<V>(items: V[], keysOf: (item: V) => readonly string[]): Map<string, V[]> {
  const groups = new Map<string, V[]>();
  for (const item of items) for (const key of keysOf(item)) groups.set(key, [...(groups.get(key) ?? []), item]);
  return groups;
}

/**
 * CrmDirectory on jsforce (docs/protocols.md §5): one SOQL query per kind of lookup and batch (the
 * batch loader gathers the keys of every mapping job running at once), answers cached with a TTL
 * and kept per key. A row is credited to every key it answers — a website `jp.x.com` answers both
 * `x.com` (as a subdomain) and `jp.x.com` — so a meeting's answer never depends on which other
 * meetings were looked up in the same query.
 */
export function createJsforceCrmDirectory(options: JsforceCrmDirectoryOptions): CrmDirectory {
  const { api, logger } = options;

  async function query(what: string, soql: string): Promise<Rec[]> {
    const started = Date.now();
    try {
      const result = await api.get<{ records: Rec[] }>(`/query?q=${encodeURIComponent(soql)}`);
      logger.debug('salesforce matching lookup', { what, found: result.records.length, ms: Date.now() - started });
      return result.records;
    } catch (error) {
      throw new SalesforceLookupError(`Salesforce ${what} lookup failed: ${(error as Error).message}`, { cause: error });
    }
  }

  const loader = <V>(load: (keys: string[]) => Promise<Map<string, V[]>>, maxBatch: number) =>
    createBatchLoader<V[]>({ load, maxBatch, ttlMs: options.cacheTtlMs, maxEntries: options.cacheMaxEntries ?? 10_000 });

  const contacts = loader<ContactRecord>(async (emails) => {
    const rows = await query(
      'Contact by email',
      `SELECT Id, Email, AccountId, Account.Type, Account.Website FROM Contact WHERE Email IN (${emails.map(quote).join(',')})`,
    );
    const found = rows.flatMap((row): ContactRecord[] => {
      const id = id18(row.Id);
      return id === undefined
        ? []
        : [
            {
              id,
              email: lower(row.Email),
              accountId: id18(row.AccountId) ?? null,
              accountType: textOrNull(account(row)?.Type),
              accountWebsite: textOrNull(account(row)?.Website),
            },
          ];
    });
    return groupBy(found, (contact) => [contact.email]);
  }, 200);

  const leads = loader<LeadRecord>(async (emails) => {
    const rows = await query('Lead by email', `SELECT Id, Email FROM Lead WHERE IsConverted = false AND Email IN (${emails.map(quote).join(',')})`);
    const found = rows.flatMap((row) => (id18(row.Id) === undefined ? [] : [{ id: id18(row.Id)!, email: lower(row.Email) }]));
    return groupBy(found, (lead) => [lead.email]);
  }, 200);

  const byDomain = loader<DomainAccount>(async (domains) => {
    const contactLikes = domains.map((domain) => `Email LIKE ${quote(`%@${domain}`)}`).join(' OR ');
    const websiteLikes = domains.map((domain) => `Website LIKE ${quote(`%${domain}%`)}`).join(' OR ');
    const [contactRows, accountRows] = await Promise.all([
      query('Account by contact domain', `SELECT AccountId, Account.Type, Email FROM Contact WHERE AccountId != null AND (${contactLikes}) LIMIT 2000`),
      query('Account by website', `SELECT Id, Website, Type FROM Account WHERE ${websiteLikes} LIMIT 500`),
    ]);
    const found = new Map<string, DomainAccount>();
    for (const row of contactRows) {
      const accountId = id18(row.AccountId);
      const domain = lower(row.Email).split('@')[1];
      if (accountId === undefined || domain === undefined || !domains.includes(domain)) continue;
      const key = `contact|${domain}|${accountId}`;
      const match = found.get(key) ?? { accountId, domain, via: 'contact_domain', host: 'exact', contacts: 0, accountType: textOrNull(account(row)?.Type) };
      found.set(key, { ...match, contacts: match.contacts + 1 });
    }
    for (const row of accountRows) {
      const accountId = id18(row.Id);
      const host = typeof row.Website === 'string' ? websiteHost(row.Website) : undefined;
      if (accountId === undefined || host === undefined) continue;
      // LIKE '%x.com%' also finds notx.com: only the host itself or its parent domains count, each on its own.
      for (const domain of domains) {
        const match = hostMatch(host, domain);
        if (match !== undefined)
          found.set(`website|${domain}|${accountId}`, { accountId, domain, via: 'website', host: match, contacts: 0, accountType: textOrNull(row.Type) });
      }
    }
    return groupBy([...found.values()], (match) => [match.domain]);
  }, 50);

  const opportunities = loader<OpportunityRecord>(async (accountIds) => {
    const team = options.opportunityTeams ? ', (SELECT User.Email FROM OpportunityTeamMembers)' : '';
    const rows = await query(
      'Opportunity by account',
      `SELECT Id, Name, AccountId, Account.Type, IsClosed, IsWon, StageName, CloseDate, CreatedDate, LastModifiedDate, Owner.Email, ` +
        `(SELECT Contact.Email, IsPrimary, Role FROM OpportunityContactRoles)${team} ` +
        `FROM Opportunity WHERE AccountId IN (${accountIds.map(quote).join(',')}) AND (IsClosed = false OR CloseDate = LAST_N_DAYS:365) ` +
        `ORDER BY LastModifiedDate DESC LIMIT 1000`,
    );
    return groupBy(
      rows.flatMap((row) => opportunityOf(row) ?? []),
      (opportunity) => [opportunity.accountId],
    );
  }, 100);

  const flat = async <V>(source: { get(keys: readonly string[]): Promise<Map<string, V[]>> }, keys: readonly string[]) =>
    keys.length === 0 ? [] : [...(await source.get(keys)).values()].flat();

  return {
    uncached: () => createJsforceCrmDirectory({ ...options, cacheTtlMs: 1, cacheMaxEntries: 1 }),
    contactsByEmail: (emails) => flat(contacts, emails),
    leadsByEmail: (emails) => flat(leads, emails),
    accountsByDomain: (domains) =>
      flat(
        byDomain,
        domains.filter((domain) => DOMAIN.test(domain)),
      ),
    forget(change) {
      contacts.forget(change.emails ?? []);
      leads.forget(change.emails ?? []);
      byDomain.forget(change.domains ?? []);
      opportunities.forget((change.accountIds ?? []).map((id) => normalizeSalesforceId(id) ?? id));
    },
    opportunitiesOf: (accountIds) =>
      flat(
        opportunities,
        accountIds.filter((id) => normalizeSalesforceId(id) === id),
      ),
  };
}
