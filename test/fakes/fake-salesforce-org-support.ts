import { request } from 'undici';

import { normalizeSalesforceId } from '../../src/mapping/salesforce-ids.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { type FakeSalesforceOrg, type FakeSalesforceOrgOptions, type JsonOrg, startFakeSalesforceOrg } from './fake-salesforce-org/index.ts';

/** What the fake Salesforce org's own tests share: credentials, a fixed clock, ids, and raw HTTP calls. */

export const CLIENT_ID = 'bridge-app';
export const CLIENT_SECRET = 'right-secret';
/** The clock of every org here: Monday 2 March 2026, 15:00 UTC. */
export const NOW = Date.parse('2026-03-02T15:00:00Z');

/** A valid 18-character id: `sfId('006', 1)` is an Opportunity (checksum per docs/protocols.md §2). */
export const sfId = (prefix: string, n: number) => normalizeSalesforceId(`${prefix}${String(n).padStart(12, '0')}`)!;

export type Json = Record<string, unknown>;
export interface Reply {
  status: number;
  body: unknown;
}

/** Starts orgs that close after each test of the calling file. */
export function orgsClosedAfterEach() {
  const cleanups = cleanupAfterEach();
  return async (org: JsonOrg, extra: Partial<FakeSalesforceOrgOptions> = {}): Promise<FakeSalesforceOrg> => {
    const fake = await startFakeSalesforceOrg({ org, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: () => NOW, ...extra });
    cleanups.push(() => fake.close());
    return fake;
  };
}

async function call(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const response = await request(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body, headersTimeout: 15_000, bodyTimeout: 15_000 });
  const text = await response.body.text();
  return { status: response.statusCode, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

export function askToken(fake: FakeSalesforceOrg, form: Record<string, string>): Promise<Reply> {
  return call(`${fake.url}/services/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

export async function clientCredentialsToken(fake: FakeSalesforceOrg): Promise<string> {
  const reply = await askToken(fake, { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
  return (reply.body as { access_token: string }).access_token;
}

/** `GET /services/data/v62.0/query?q=…` with `token` (a fresh client credentials token when not given; '' sends none). */
export async function query(fake: FakeSalesforceOrg, soql: string, token?: string): Promise<Reply> {
  const bearer = token ?? (await clientCredentialsToken(fake));
  return call(`${fake.url}/services/data/v62.0/query?q=${encodeURIComponent(soql)}`, bearer === '' ? {} : { headers: { authorization: `Bearer ${bearer}` } });
}

/** The records of a 200 answer, each without its `attributes`; fails the test on any other answer. */
export async function records(fake: FakeSalesforceOrg, soql: string): Promise<Json[]> {
  const reply = await query(fake, soql);
  if (reply.status !== 200) throw new Error(`expected 200 for ${soql}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  return (reply.body as { records: Json[] }).records.map(({ attributes: _attributes, ...fields }) => fields);
}

/** The ids of the records a query answers, in order. */
export async function ids(fake: FakeSalesforceOrg, soql: string): Promise<unknown[]> {
  return (await records(fake, soql)).map((record) => record.Id);
}
