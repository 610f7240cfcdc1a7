import { type KeyObject, randomUUID, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';

/**
 * A loopback Salesforce for the jsforce tests: the OAuth 2.0 token endpoint (JWT bearer grant,
 * assertion signature checked with the test public key; client credentials grant) and the REST
 * query endpoint answering `SELECT Id, Email FROM User WHERE Id IN (…)` from an in-memory table.
 * It records every request and can be told to fail.
 */
export interface FakeSalesforceOptions {
  clientId: string;
  /** Client credentials flow. */
  clientSecret?: string;
  /** JWT bearer flow: the expected `sub` and the key that must have signed the assertion. */
  username?: string;
  publicKey?: KeyObject | string;
  /** User id (18 characters) → Email; a null email is a User without one. */
  users?: Record<string, string | null>;
  /** How long a query waits before it is answered (ms), by its SOQL text: a slow org, or one slow record. */
  queryDelayMs?: (soql: string) => number;
}

export interface RecordedSalesforceRequest {
  method: string;
  path: string;
  /** Token requests: the grant type. */
  grantType?: string;
  /** Query requests: the SOQL text. */
  soql?: string;
  /** The bearer token sent, if any. */
  token?: string;
  status: number;
}

export interface FakeSalesforce {
  url: string;
  requests: RecordedSalesforceRequest[];
  tokenRequests: () => RecordedSalesforceRequest[];
  queries: () => RecordedSalesforceRequest[];
  /** JWT claims of every accepted assertion. */
  assertions: Array<Record<string, unknown>>;
  /** The next `count` queries answer `status` (500/503: server error; 401: the session expired). */
  failQueries: (count: number, status: 401 | 500 | 503) => void;
  /** Every token issued so far stops working (as when a session times out). */
  expireTokens: () => void;
  close: () => Promise<void>;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const USER_QUERY = /^SELECT Id, Email FROM User WHERE Id IN \(((?:'[0-9A-Za-z]{18}',?)+)\)$/;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): number {
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
  res.end(JSON.stringify(body));
  return status;
}

/** Checks a JWT bearer assertion the way Salesforce does: RS256 signature, iss, sub, aud, exp ≤ 3 minutes. */
export function checkAssertion(assertion: string, options: FakeSalesforceOptions, audience: string): Record<string, unknown> | string {
  const [header, payload, signature] = assertion.split('.');
  if (header === undefined || payload === undefined || signature === undefined || options.publicKey === undefined) return 'malformed assertion';
  const alg = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string }).alg;
  if (alg !== 'RS256') return `unsupported alg ${alg}`;
  if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), options.publicKey, Buffer.from(signature, 'base64url'))) return 'invalid signature';
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  const now = Math.floor(Date.now() / 1000);
  if (claims.iss !== options.clientId) return 'invalid client identifier';
  if (claims.sub !== options.username) return 'user hasn’t approved this consumer';
  if (claims.aud !== audience) return 'audience is invalid';
  if (typeof claims.exp !== 'number' || claims.exp < now || claims.exp > now + 180) return 'expiration time is invalid';
  return claims;
}

export async function startFakeSalesforce(options: FakeSalesforceOptions): Promise<FakeSalesforce> {
  const requests: RecordedSalesforceRequest[] = [];
  const assertions: Array<Record<string, unknown>> = [];
  const liveTokens = new Set<string>();
  const failures: Array<401 | 500 | 503> = [];
  const users = options.users ?? {};
  let url = '';

  const token = (res: ServerResponse): number => {
    const accessToken = `00D8d0000001XyZ!${randomUUID()}`;
    liveTokens.add(accessToken);
    return send(res, 200, {
      access_token: accessToken,
      instance_url: url,
      id: `${url}/id/00D8d0000001XyZEAU/0058d0000101XyZAAU`,
      token_type: 'Bearer',
      issued_at: String(Date.now()),
      signature: 'fake',
    });
  };

  const tokenEndpoint = (form: URLSearchParams, res: ServerResponse): number => {
    const grant = form.get('grant_type');
    if (grant === JWT_BEARER) {
      const checked = checkAssertion(form.get('assertion') ?? '', options, url);
      if (typeof checked === 'string') return send(res, 400, { error: 'invalid_grant', error_description: checked });
      assertions.push(checked);
      return token(res);
    }
    if (grant === 'client_credentials') {
      if (options.clientSecret === undefined || form.get('client_id') !== options.clientId || form.get('client_secret') !== options.clientSecret) {
        return send(res, 400, { error: 'invalid_client', error_description: 'invalid client credentials' });
      }
      return token(res);
    }
    return send(res, 400, { error: 'unsupported_grant_type', error_description: `grant type not supported: ${grant}` });
  };

  const queryEndpoint = (soql: string, bearer: string | undefined, res: ServerResponse): number => {
    const failure = failures.shift();
    if (failure === 401) liveTokens.clear();
    else if (failure !== undefined) return send(res, failure, [{ message: 'Service temporarily unavailable', errorCode: 'SERVER_UNAVAILABLE' }]);
    if (bearer === undefined || !liveTokens.has(bearer)) {
      return send(res, 401, [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    }
    const match = USER_QUERY.exec(soql);
    if (match === null) return send(res, 400, [{ message: `unexpected query: ${soql}`, errorCode: 'MALFORMED_QUERY' }]);
    const ids = (match[1] ?? '').split(',').map((quoted) => quoted.slice(1, -1));
    const records = ids
      .filter((id) => Object.hasOwn(users, id))
      .map((id) => ({ attributes: { type: 'User', url: `/services/data/v62.0/sobjects/User/${id}` }, Id: id, Email: users[id] }));
    return send(res, 200, { totalSize: records.length, done: true, records });
  };

  const server = createServer((req, res) => {
    void (async () => {
      const target = new URL(req.url ?? '/', url);
      const body = await readBody(req);
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const record: RecordedSalesforceRequest = { method: req.method ?? '', path: target.pathname, status: 0, ...(bearer ? { token: bearer } : {}) };
      requests.push(record);
      if (req.method === 'POST' && target.pathname === '/services/oauth2/token') {
        const form = new URLSearchParams(body);
        record.grantType = form.get('grant_type') ?? '';
        record.status = tokenEndpoint(form, res);
      } else if (req.method === 'GET' && /^\/services\/data\/v\d+\.\d\/query\/?$/.test(target.pathname)) {
        record.soql = target.searchParams.get('q') ?? '';
        const delay = options.queryDelayMs?.(record.soql) ?? 0;
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        record.status = queryEndpoint(record.soql, bearer, res);
      } else {
        record.status = send(res, 404, [{ message: 'not found', errorCode: 'NOT_FOUND' }]);
      }
    })();
  });
  const listening = await listenOnLoopback(server);
  url = listening.url;

  return {
    url,
    requests,
    assertions,
    tokenRequests: () => requests.filter((request) => request.path === '/services/oauth2/token'),
    queries: () => requests.filter((request) => request.soql !== undefined),
    failQueries: (count, status) => {
      for (let i = 0; i < count; i += 1) failures.push(status);
    },
    expireTokens: () => liveTokens.clear(),
    close: listening.close,
  };
}
