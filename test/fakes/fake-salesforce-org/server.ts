import { type KeyObject, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import { listenOnLoopback } from '../../support/listen-on-loopback.ts';
import { checkAssertion } from '../fake-salesforce.ts';
import { evaluateSoql } from './evaluate.ts';
import type { JsonOrg } from './org.ts';
import { SoqlError } from './soql-error.ts';

/**
 * A loopback Salesforce answering real SOQL over a JSON org: the OAuth 2.0 token endpoint (client
 * credentials; JWT bearer with the assertion's signature checked as test/fakes/fake-salesforce.ts
 * does) and `GET /services/data/vNN.N/query?q=…` with a bearer token. A query the fake cannot
 * evaluate answers 400 as Salesforce refuses one, never an empty result.
 */
export interface FakeSalesforceOrgOptions {
  org: JsonOrg;
  clientId: string;
  clientSecret: string;
  /** JWT bearer flow: the expected `sub` and the key that must have signed the assertion. */
  username?: string;
  publicKey?: KeyObject | string;
  /** The clock TODAY and LAST_N_DAYS:n are read against (ms since the epoch); Date.now by default. */
  now?: () => number;
  /** Told every access token issued: another fake API of the same org (Pub/Sub) accepts it too. */
  onToken?: (accessToken: string) => void;
}

export interface FakeSalesforceOrg {
  /** Instance URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** Live: tests may push or change records between queries. */
  org: JsonOrg;
  /** Every SOQL text received, in order. */
  queries(): string[];
  /** The `Sforce-Call-Options` header of every query, in order (absent: undefined). */
  callOptions(): Array<string | undefined>;
  resetQueries(): void;
  /** The next `count` queries answer `status` (500/503: server error; 401: every token expires). */
  failNextQueries(count: number, status?: 401 | 500 | 503): void;
  close(): Promise<void>;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const QUERY_PATH = /^\/services\/data\/v(\d+\.\d)\/query\/?$/;
const FAILURE_CODES = { 500: 'UNKNOWN_EXCEPTION', 503: 'SERVER_UNAVAILABLE' } as const;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
  res.end(JSON.stringify(body));
}

export async function startFakeSalesforceOrg(options: FakeSalesforceOrgOptions): Promise<FakeSalesforceOrg> {
  const received: string[] = [];
  const callOptions: Array<string | undefined> = [];
  const liveTokens = new Set<string>();
  const failures: Array<401 | 500 | 503> = [];
  const now = options.now ?? Date.now;
  let url = '';

  const issueToken = (res: ServerResponse) => {
    const accessToken = `00D8d0000001XyZ!${randomUUID()}`;
    liveTokens.add(accessToken);
    options.onToken?.(accessToken);
    // jsforce reads the user and org ids from `id` (…/id/<org id>/<user id>).
    send(res, 200, {
      access_token: accessToken,
      instance_url: url,
      id: `${url}/id/00D8d0000001XyZEAU/0058d0000101XyZAAU`,
      token_type: 'Bearer',
      issued_at: String(now()),
      scope: 'api',
      signature: 'fake',
    });
  };

  const token = (form: URLSearchParams, res: ServerResponse) => {
    const grant = form.get('grant_type');
    if (grant === JWT_BEARER) {
      const checked = checkAssertion(form.get('assertion') ?? '', options, url);
      if (typeof checked === 'string') return send(res, 400, { error: 'invalid_grant', error_description: checked });
      return issueToken(res);
    }
    if (grant === 'client_credentials') {
      if (form.get('client_id') !== options.clientId || form.get('client_secret') !== options.clientSecret) {
        return send(res, 400, { error: 'invalid_client', error_description: 'invalid client credentials' });
      }
      return issueToken(res);
    }
    send(res, 400, { error: 'unsupported_grant_type', error_description: `grant type not supported: ${grant}` });
  };

  const query = (soql: string | null, version: string, bearer: string | undefined, res: ServerResponse) => {
    if (soql !== null) received.push(soql);
    const failure = failures.shift();
    if (failure === 401) liveTokens.clear();
    else if (failure !== undefined) return send(res, failure, [{ message: 'Service temporarily unavailable', errorCode: FAILURE_CODES[failure] }]);
    if (bearer === undefined || !liveTokens.has(bearer)) return send(res, 401, [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    if (soql === null) return send(res, 400, [{ message: 'A query string has to be specified', errorCode: 'MALFORMED_QUERY' }]);
    try {
      send(res, 200, evaluateSoql(options.org, soql, { now: now(), version }));
    } catch (error) {
      if (error instanceof SoqlError) send(res, 400, [{ message: error.message, errorCode: error.errorCode }]);
      else send(res, 500, [{ message: (error as Error).message, errorCode: 'UNKNOWN_EXCEPTION' }]);
    }
  };

  const server = createServer((req, res) => {
    void (async () => {
      const target = new URL(req.url ?? '/', url);
      const body = await readBody(req);
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const version = QUERY_PATH.exec(target.pathname)?.[1];
      if (req.method === 'POST' && target.pathname === '/services/oauth2/token') token(new URLSearchParams(body), res);
      else if (req.method === 'GET' && version !== undefined) {
        const header = req.headers['sforce-call-options'];
        callOptions.push(Array.isArray(header) ? header.join(', ') : header);
        query(target.searchParams.get('q'), version, bearer, res);
      } else send(res, 404, [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }]);
    })();
  });
  const listening = await listenOnLoopback(server);
  url = listening.url;

  return {
    url,
    org: options.org,
    queries: () => [...received],
    callOptions: () => [...callOptions],
    resetQueries: () => {
      received.length = 0;
      callOptions.length = 0;
    },
    failNextQueries: (count, status = 503) => {
      for (let i = 0; i < count; i += 1) failures.push(status);
    },
    close: listening.close,
  };
}
