import type { AccountMatch, AttendeeDirectory, ContactMatch, LeadMatch, OpportunityCandidate } from '../calendar/attendee-directory.ts';
import type { Logger } from '../core/logger.ts';
import { normalizeSalesforceId } from '../mapping/salesforce-ids.ts';
import { createBatchLoader } from './batch-loader.ts';
import { SalesforceLookupError } from './directory.ts';
import type { SalesforceApi } from './jsforce-connection.ts';

export interface JsforceAttendeeDirectoryOptions {
  api: SalesforceApi;
  logger: Logger;
  /** SALESFORCE_LOOKUP_CACHE_TTL: answers (and absences) are reused for this long. */
  cacheTtlMs: number;
  cacheMaxEntries?: number;
}

interface QueryResult<R> {
  records: R[];
}
type Rec = Record<string, unknown>;

// Quoted SOQL literal. Emails are already checked by normaliseEmail and domains by DOMAIN; the
// escape is the second fence against injection.
const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const DOMAIN = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const id18 = (value: unknown) => (typeof value === 'string' ? normalizeSalesforceId(value) : undefined);
const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : '');

function groupBy<V>(items: V[], keyOf: (item: V) => string | undefined): Map<string, V[]> {
  const groups = new Map<string, V[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key !== undefined) groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

/** The host of an Account website (`https://www.globex.test/about` → globex.test). */
export function websiteHost(website: string): string | undefined {
  try {
    const host = new URL(/^[a-z]+:\/\//i.test(website) ? website : `https://${website.trim()}`).hostname.toLowerCase();
    return host.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

/** Whether `host` is the domain itself or one of its subdomains. */
const hostMatches = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** AttendeeDirectory on jsforce: one SOQL query per kind of lookup and batch, answers cached with a TTL. */
export function createJsforceAttendeeDirectory(options: JsforceAttendeeDirectoryOptions): AttendeeDirectory {
  const { api, logger } = options;

  async function query(what: string, soql: string): Promise<Rec[]> {
    const started = Date.now();
    try {
      const result = await api.get<QueryResult<Rec>>(`/query?q=${encodeURIComponent(soql)}`);
      logger.debug('salesforce attendee lookup', { what, found: result.records.length, ms: Date.now() - started });
      return result.records;
    } catch (error) {
      throw new SalesforceLookupError(`Salesforce ${what} lookup failed: ${(error as Error).message}`, { cause: error });
    }
  }

  const loader = <V>(load: (keys: string[]) => Promise<Map<string, V[]>>, maxBatch: number) =>
    createBatchLoader<V[]>({ load, maxBatch, ttlMs: options.cacheTtlMs, maxEntries: options.cacheMaxEntries ?? 10_000 });

  const contacts = loader<ContactMatch>(async (emails) => {
    const rows = await query('Contact by email', `SELECT Id, Email, AccountId FROM Contact WHERE Email IN (${emails.map(quote).join(',')})`);
    const matches = rows.flatMap((row) => {
      const id = id18(row.Id);
      return id === undefined ? [] : [{ id, email: lower(row.Email), accountId: id18(row.AccountId) ?? null }];
    });
    return groupBy(matches, (match) => match.email);
  }, 200);

  const leads = loader<LeadMatch>(async (emails) => {
    const rows = await query('Lead by email', `SELECT Id, Email FROM Lead WHERE IsConverted = false AND Email IN (${emails.map(quote).join(',')})`);
    const matches = rows.flatMap((row) => (id18(row.Id) === undefined ? [] : [{ id: id18(row.Id)!, email: lower(row.Email) }]));
    return groupBy(matches, (match) => match.email);
  }, 200);

  const byContactDomain = loader<AccountMatch>(async (domains) => {
    const likes = domains.map((domain) => `Email LIKE ${quote(`%@${domain}`)}`).join(' OR ');
    const rows = await query('Account by contact domain', `SELECT AccountId, Email FROM Contact WHERE AccountId != null AND (${likes}) LIMIT 2000`);
    const counts = new Map<string, AccountMatch>();
    for (const row of rows) {
      const accountId = id18(row.AccountId);
      const domain = lower(row.Email).split('@')[1];
      if (accountId === undefined || domain === undefined || !domains.includes(domain)) continue;
      const key = `${domain}|${accountId}`;
      const match = counts.get(key) ?? { accountId, domain, contacts: 0 };
      counts.set(key, { ...match, contacts: match.contacts + 1 });
    }
    // The Account with the most Contacts at the domain first.
    return groupBy(
      [...counts.values()].sort((a, b) => b.contacts - a.contacts),
      (match) => match.domain,
    );
  }, 50);

  const byWebsite = loader<AccountMatch>(async (domains) => {
    const likes = domains.map((domain) => `Website LIKE ${quote(`%${domain}%`)}`).join(' OR ');
    const rows = await query('Account by website', `SELECT Id, Website FROM Account WHERE ${likes} ORDER BY LastModifiedDate DESC LIMIT 200`);
    const matches: AccountMatch[] = [];
    for (const row of rows) {
      const accountId = id18(row.Id);
      const host = typeof row.Website === 'string' ? websiteHost(row.Website) : undefined;
      // LIKE '%globex.test%' also finds notglobex.test: keep only the domain and its subdomains.
      const domain = host === undefined ? undefined : domains.find((candidate) => hostMatches(host, candidate));
      if (accountId !== undefined && domain !== undefined) matches.push({ accountId, domain, contacts: 0 });
    }
    return groupBy(matches, (match) => match.domain);
  }, 50);

  const opportunities = loader<OpportunityCandidate>(async (accountIds) => {
    const rows = await query(
      'Opportunity by account',
      `SELECT Id, AccountId, IsClosed, CloseDate, CreatedDate, LastModifiedDate, Owner.Email, (SELECT Contact.Email FROM OpportunityContactRoles) ` +
        `FROM Opportunity WHERE AccountId IN (${accountIds.map(quote).join(',')}) AND (IsClosed = false OR CloseDate = LAST_N_DAYS:365) ` +
        `ORDER BY LastModifiedDate DESC LIMIT 1000`,
    );
    const candidates = rows.flatMap((row): OpportunityCandidate[] => {
      const id = id18(row.Id);
      const accountId = id18(row.AccountId);
      if (id === undefined || accountId === undefined) return [];
      const roles = (row.OpportunityContactRoles as { records?: Array<{ Contact?: { Email?: unknown } | null }> } | null)?.records ?? [];
      return [
        {
          id,
          accountId,
          isClosed: row.IsClosed === true,
          closeDate: typeof row.CloseDate === 'string' ? row.CloseDate : null,
          createdDate: String(row.CreatedDate ?? ''),
          lastModifiedDate: String(row.LastModifiedDate ?? ''),
          ownerEmail: lower((row.Owner as { Email?: unknown } | null)?.Email) || null,
          contactEmails: roles.map((role) => lower(role.Contact?.Email)).filter((email) => email !== ''),
        },
      ];
    });
    return groupBy(candidates, (candidate) => candidate.accountId);
  }, 100);

  const flat = async <V>(source: { get(keys: readonly string[]): Promise<Map<string, V[]>> }, keys: readonly string[]) =>
    keys.length === 0 ? [] : [...(await source.get(keys)).values()].flat();
  const domainsOnly = (domains: readonly string[]) => domains.filter((domain) => DOMAIN.test(domain));

  return {
    contactsByEmail: (emails) => flat(contacts, emails),
    leadsByEmail: (emails) => flat(leads, emails),
    accountsByContactDomain: (domains) => flat(byContactDomain, domainsOnly(domains)),
    accountsByWebsite: (domains) => flat(byWebsite, domainsOnly(domains)),
    opportunitiesOf: (accountIds) =>
      flat(
        opportunities,
        accountIds.filter((id) => normalizeSalesforceId(id) === id),
      ),
  };
}
