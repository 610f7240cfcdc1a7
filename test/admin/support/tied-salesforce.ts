import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';

import { listenOnLoopback } from '../../support/listen-on-loopback.ts';

/**
 * A loopback Salesforce org where one Account's Contact attends and the Account has two open
 * opportunities that nothing sets apart (no contact role attends, their owner does not): the tie
 * matching never guesses. Client credentials flow; queries are answered by the object they read
 * (Contact by email, Opportunity by Account, nothing else), and every query is recorded.
 */

export const TIED_ACCOUNT = '0018d0000101XyZAAU';
export const TIED_CONTACT = '0038d0000101XyZAAU';
export const TIED_OPPORTUNITIES = ['0068d0000202XyZAAU', '0068d0000303XyZAAU'] as const;
export const TIED_CLIENT = { id: 'bridge-app', secret: 'tied-org-secret' };

export interface TiedSalesforce {
  url: string;
  /** Every SOQL text asked, in order. */
  queries: string[];
  close(): Promise<void>;
}

const answer = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
  res.end(JSON.stringify(body));
};

const quoted = (soql: string) => [...soql.matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((match) => match[1]!.toLowerCase());

/** The org's rows for one query: `buyer` is the attending Contact's email. */
function rowsFor(soql: string, buyer: string): Array<Record<string, unknown>> {
  if (/ FROM Contact WHERE Email IN /.test(soql) && quoted(soql).includes(buyer)) {
    return [{ Id: TIED_CONTACT, Email: buyer, AccountId: TIED_ACCOUNT, Account: { Type: 'Customer', Website: null } }];
  }
  if (/ FROM Opportunity WHERE AccountId IN /.test(soql) && quoted(soql).includes(TIED_ACCOUNT.toLowerCase())) {
    return TIED_OPPORTUNITIES.map((id, index) => ({
      Id: id,
      Name: index === 0 ? 'Globex renewal' : 'Globex expansion',
      AccountId: TIED_ACCOUNT,
      Account: { Type: 'Customer' },
      IsClosed: false,
      IsWon: false,
      StageName: 'Negotiation',
      CloseDate: '2026-06-30',
      CreatedDate: '2026-01-05T10:00:00.000+0000',
      LastModifiedDate: `2026-02-0${index + 1}T10:00:00.000+0000`,
      Owner: { Email: 'owner.absent@example.com' },
      OpportunityContactRoles: null,
    }));
  }
  return [];
}

export async function startTiedSalesforce(buyer: string): Promise<TiedSalesforce> {
  const queries: string[] = [];
  const tokens = new Set<string>();
  let url = '';
  const server = createServer((req, res) => {
    void (async () => {
      const target = new URL(req.url ?? '/', url);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.method === 'POST' && target.pathname === '/services/oauth2/token') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== TIED_CLIENT.id || form.get('client_secret') !== TIED_CLIENT.secret)
          return answer(res, 400, { error: 'invalid_client', error_description: 'invalid client credentials' });
        const token = `00D8d0000001XyZ!${randomUUID()}`;
        tokens.add(token);
        return answer(res, 200, { access_token: token, instance_url: url, id: `${url}/id/00D8d0000001XyZEAU/0058d0000101XyZAAU`, token_type: 'Bearer' });
      }
      if (req.method === 'GET' && /^\/services\/data\/v\d+\.\d\/query\/?$/.test(target.pathname)) {
        if (!tokens.has(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? ''))
          return answer(res, 401, [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
        const soql = target.searchParams.get('q') ?? '';
        queries.push(soql);
        const records = rowsFor(soql, buyer);
        return answer(res, 200, { totalSize: records.length, done: true, records });
      }
      answer(res, 404, [{ message: 'not found', errorCode: 'NOT_FOUND' }]);
    })();
  });
  const listening = await listenOnLoopback(server);
  url = listening.url;
  return { url, queries, close: listening.close };
}

/** The bridge settings that point its CRM directory at this org. */
export const tiedSalesforceSettings = (org: TiedSalesforce): Record<string, string> => ({
  SALESFORCE_LOGIN_URL: org.url,
  SALESFORCE_CLIENT_ID: TIED_CLIENT.id,
  SALESFORCE_CLIENT_SECRET: TIED_CLIENT.secret,
});
