import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';

/**
 * A loopback Salesforce holding Contacts, Leads, Accounts and Opportunities, answering exactly the
 * SOQL shapes the attendee directory sends (anything else is MALFORMED_QUERY, so a changed query
 * fails loudly). Client credentials flow only. Records every query.
 */
export interface Tables {
  contacts?: Array<{ Id: string; Email: string; AccountId: string | null }>;
  leads?: Array<{ Id: string; Email: string; IsConverted?: boolean }>;
  accounts?: Array<{ Id: string; Website: string | null; LastModifiedDate?: string }>;
  opportunities?: Array<{
    Id: string;
    AccountId: string;
    IsClosed: boolean;
    CloseDate: string;
    CreatedDate: string;
    LastModifiedDate: string;
    OwnerEmail: string | null;
    ContactRoleEmails?: string[];
  }>;
}

export interface FakeSalesforceRecords {
  url: string;
  queries: string[];
  failNextQueries(count: number): void;
  close(): Promise<void>;
}

const quoted = (list: string) => [...list.matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((match) => match[1]!.replace(/\\(.)/g, '$1'));
const records = (type: string, rows: Array<Record<string, unknown>>) => ({
  totalSize: rows.length,
  done: true,
  records: rows.map((row) => ({ attributes: { type }, ...row })),
});

function answer(soql: string, tables: Tables): unknown {
  let match = /^SELECT Id, Email, AccountId FROM Contact WHERE Email IN \((.*)\)$/.exec(soql);
  if (match) {
    const emails = quoted(match[1]!).map((email) => email.toLowerCase());
    return records(
      'Contact',
      (tables.contacts ?? []).filter((row) => emails.includes(row.Email.toLowerCase())),
    );
  }
  match = /^SELECT Id, Email FROM Lead WHERE IsConverted = false AND Email IN \((.*)\)$/.exec(soql);
  if (match) {
    const emails = quoted(match[1]!).map((email) => email.toLowerCase());
    return records(
      'Lead',
      (tables.leads ?? []).filter((row) => !row.IsConverted && emails.includes(row.Email.toLowerCase())).map(({ Id, Email }) => ({ Id, Email })),
    );
  }
  match = /^SELECT AccountId, Email FROM Contact WHERE AccountId != null AND \((.*)\) LIMIT \d+$/.exec(soql);
  if (match) {
    const suffixes = quoted(match[1]!).map((like) => like.replace(/^%/, '').toLowerCase());
    return records(
      'Contact',
      (tables.contacts ?? [])
        .filter((row) => row.AccountId !== null && suffixes.some((suffix) => row.Email.toLowerCase().endsWith(suffix)))
        .map(({ AccountId, Email }) => ({ AccountId, Email })),
    );
  }
  match = /^SELECT Id, Website FROM Account WHERE (.*) ORDER BY LastModifiedDate DESC LIMIT \d+$/.exec(soql);
  if (match) {
    const parts = quoted(match[1]!).map((like) => like.replace(/%/g, '').toLowerCase());
    const rows = (tables.accounts ?? []).filter((row) => row.Website !== null && parts.some((part) => row.Website!.toLowerCase().includes(part)));
    return records(
      'Account',
      rows.map(({ Id, Website }) => ({ Id, Website })),
    );
  }
  match =
    /^SELECT Id, AccountId, IsClosed, CloseDate, CreatedDate, LastModifiedDate, Owner\.Email, \(SELECT Contact\.Email FROM OpportunityContactRoles\) FROM Opportunity WHERE AccountId IN \((.*)\) AND \(IsClosed = false OR CloseDate = LAST_N_DAYS:365\) ORDER BY LastModifiedDate DESC LIMIT \d+$/.exec(
      soql,
    );
  if (match) {
    const ids = quoted(match[1]!);
    const rows = (tables.opportunities ?? []).filter((row) => ids.includes(row.AccountId));
    return records(
      'Opportunity',
      rows.map(({ OwnerEmail, ContactRoleEmails, ...row }) => ({
        ...row,
        Owner: OwnerEmail === null ? null : { attributes: { type: 'User' }, Email: OwnerEmail },
        OpportunityContactRoles: ContactRoleEmails?.length
          ? records(
              'OpportunityContactRole',
              ContactRoleEmails.map((Email) => ({ Contact: { Email } })),
            )
          : null,
      })),
    );
  }
  return undefined;
}

export async function startFakeSalesforceRecords(
  tables: Tables,
  credentials = { clientId: 'bridge-app', clientSecret: 'right-secret' },
): Promise<FakeSalesforceRecords> {
  const queries: string[] = [];
  const tokens = new Set<string>();
  let failures = 0;
  let url = '';
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const target = new URL(req.url ?? '/', url);
      if (req.method === 'POST' && target.pathname === '/services/oauth2/token') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        if (
          form.get('grant_type') !== 'client_credentials' ||
          form.get('client_id') !== credentials.clientId ||
          form.get('client_secret') !== credentials.clientSecret
        ) {
          return send(res, 400, { error: 'invalid_client' });
        }
        const token = `00D!${randomUUID()}`;
        tokens.add(token);
        return send(res, 200, { access_token: token, instance_url: url, id: `${url}/id/00D/005`, token_type: 'Bearer', issued_at: String(Date.now()) });
      }
      if (req.method === 'GET' && /^\/services\/data\/v\d+\.\d\/query\/?$/.test(target.pathname)) {
        const soql = target.searchParams.get('q') ?? '';
        queries.push(soql);
        if (!tokens.has(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? ''))
          return send(res, 401, [{ errorCode: 'INVALID_SESSION_ID', message: 'Session expired' }]);
        if (failures > 0) {
          failures -= 1;
          return send(res, 503, [{ errorCode: 'SERVER_UNAVAILABLE', message: 'unavailable' }]);
        }
        const body = answer(soql, tables);
        return body === undefined ? send(res, 400, [{ errorCode: 'MALFORMED_QUERY', message: `unexpected query: ${soql}` }]) : send(res, 200, body);
      }
      send(res, 404, [{ errorCode: 'NOT_FOUND', message: 'not found' }]);
    })();
  });
  const listening = await listenOnLoopback(server);
  url = listening.url;
  return {
    url,
    queries,
    failNextQueries: (count) => void (failures += count),
    close: listening.close,
  };
}
