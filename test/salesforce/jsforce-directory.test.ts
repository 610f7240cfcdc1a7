import { generateKeyPairSync } from 'node:crypto';

import { afterEach, describe, expect, it } from 'vitest';

import { SalesforceLookupError } from '../../src/salesforce/directory.ts';
import { createSalesforceApi, type SalesforceAuth } from '../../src/salesforce/jsforce-connection.ts';
import { createJsforceDirectory } from '../../src/salesforce/jsforce-directory.ts';
import { type FakeSalesforce, type FakeSalesforceOptions, startFakeSalesforce } from '../fakes/fake-salesforce.ts';
import { captureLogs } from '../support/log-capture.ts';

const ALICE = '0058d0000101XyZAAU';
const BOB = '0058d0000102XyZAAU';
const CAROL = '0058d0000103XyZAAU';
const NO_EMAIL = '0058d0000104XyZAAU';
const UNKNOWN = '0058d0000199XyZAAU';
const users = { [ALICE]: 'alice@example.com', [BOB]: 'bob@example.com', [CAROL]: 'carol@example.com', [NO_EMAIL]: null };

const keys = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });

const fakes: FakeSalesforce[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function fakeSalesforce(options: Omit<FakeSalesforceOptions, 'users'>): Promise<FakeSalesforce> {
  const fake = await startFakeSalesforce({ ...options, users });
  fakes.push(fake);
  return fake;
}

async function clientCredentialsSetup(options: { cacheTtlMs?: number; batchSize?: number; secret?: string } = {}) {
  const fake = await fakeSalesforce({ clientId: 'bridge-app', clientSecret: 'right-secret' });
  const auth: SalesforceAuth = { flow: 'client-credentials', loginUrl: fake.url, clientId: 'bridge-app', clientSecret: options.secret ?? 'right-secret' };
  const directory = createJsforceDirectory({
    api: createSalesforceApi({ auth, apiVersion: '62.0' }),
    logger: captureLogs().logger,
    cacheTtlMs: options.cacheTtlMs ?? 600_000,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
  });
  return { fake, directory };
}

describe('jsforce directory', () => {
  it('when lookups use the JWT bearer flow, then a signed assertion is exchanged and the owners come from one query', async () => {
    const { privateKey, publicKey } = keys();
    const fake = await fakeSalesforce({ clientId: 'bridge-app', username: 'bridge@example.com', publicKey });
    const auth: SalesforceAuth = { flow: 'jwt-bearer', loginUrl: fake.url, clientId: 'bridge-app', username: 'bridge@example.com', privateKey };
    const directory = createJsforceDirectory({ api: createSalesforceApi({ auth, apiVersion: '62.0' }), logger: captureLogs().logger, cacheTtlMs: 600_000 });

    const emails = await directory.ownerEmails([ALICE, BOB, UNKNOWN, NO_EMAIL]);

    expect(emails).toEqual(
      new Map([
        [ALICE, 'alice@example.com'],
        [BOB, 'bob@example.com'],
      ]),
    );
    expect(fake.tokenRequests().map((request) => [request.grantType, request.status])).toEqual([['urn:ietf:params:oauth:grant-type:jwt-bearer', 200]]);
    expect(fake.assertions[0]).toMatchObject({ iss: 'bridge-app', sub: 'bridge@example.com', aud: fake.url });
    expect(fake.queries().map((query) => query.soql)).toEqual([`SELECT Id, Email FROM User WHERE Id IN ('${ALICE}','${BOB}','${UNKNOWN}','${NO_EMAIL}')`]);
    expect(fake.queries()[0]?.path).toBe('/services/data/v62.0/query');
  });

  it('when the JWT is signed with a key Salesforce does not know, then the lookup fails as retryable and nothing is queried', async () => {
    const fake = await fakeSalesforce({ clientId: 'bridge-app', username: 'bridge@example.com', publicKey: keys().publicKey });
    const auth: SalesforceAuth = {
      flow: 'jwt-bearer',
      loginUrl: fake.url,
      clientId: 'bridge-app',
      username: 'bridge@example.com',
      privateKey: keys().privateKey,
    };
    const directory = createJsforceDirectory({ api: createSalesforceApi({ auth, apiVersion: '62.0' }), logger: captureLogs().logger, cacheTtlMs: 600_000 });

    const failure = await directory.ownerEmails([ALICE]).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(SalesforceLookupError);
    expect((failure as SalesforceLookupError).retryable).toBe(true);
    expect((failure as Error).message).toBe('Salesforce User lookup failed: invalid_grant: invalid signature');
    expect(fake.queries()).toHaveLength(0);
  });

  it('when lookups use the client credentials flow, then the client id and secret get a token and the query runs', async () => {
    const { fake, directory } = await clientCredentialsSetup();

    const emails = await directory.ownerEmails([CAROL]);

    expect(emails).toEqual(new Map([[CAROL, 'carol@example.com']]));
    expect(fake.tokenRequests().map((request) => [request.grantType, request.status])).toEqual([['client_credentials', 200]]);
    expect(fake.queries()).toHaveLength(1);
  });

  it('when the client secret is wrong, then the lookup fails as retryable and the next attempt authenticates again', async () => {
    const { fake, directory } = await clientCredentialsSetup({ secret: 'wrong-secret' });

    await expect(directory.ownerEmails([ALICE])).rejects.toThrow(
      new SalesforceLookupError('Salesforce User lookup failed: invalid_client: invalid client credentials'),
    );
    await expect(directory.ownerEmails([ALICE])).rejects.toBeInstanceOf(SalesforceLookupError);

    expect(fake.tokenRequests()).toHaveLength(2);
    expect(fake.queries()).toHaveLength(0);
  });

  it('when several jobs ask at once, then their ids go out in one query, split only by the batch size', async () => {
    const { fake, directory } = await clientCredentialsSetup({ batchSize: 2 });

    const [first, second, third] = await Promise.all([directory.ownerEmails([ALICE]), directory.ownerEmails([BOB, ALICE]), directory.ownerEmails([CAROL])]);

    expect(first).toEqual(new Map([[ALICE, 'alice@example.com']]));
    expect(second).toEqual(
      new Map([
        [BOB, 'bob@example.com'],
        [ALICE, 'alice@example.com'],
      ]),
    );
    expect(third).toEqual(new Map([[CAROL, 'carol@example.com']]));
    expect(fake.queries().map((query) => query.soql)).toEqual([
      `SELECT Id, Email FROM User WHERE Id IN ('${ALICE}','${BOB}')`,
      `SELECT Id, Email FROM User WHERE Id IN ('${CAROL}')`,
    ]);
    expect(fake.tokenRequests()).toHaveLength(1);
  });

  it('when the same owners are asked for again within the TTL, then the cache answers and no second query is made', async () => {
    const { fake, directory } = await clientCredentialsSetup();
    await directory.ownerEmails([ALICE, UNKNOWN]);

    const again = await directory.ownerEmails([ALICE, UNKNOWN]);

    expect(again).toEqual(new Map([[ALICE, 'alice@example.com']]));
    expect(fake.queries()).toHaveLength(1);
  });

  it('when the cached answer is older than the TTL, then the owner is queried again', async () => {
    const { fake, directory } = await clientCredentialsSetup({ cacheTtlMs: 1 });
    await directory.ownerEmails([ALICE]);
    await new Promise((resolve) => setTimeout(resolve, 20));

    await directory.ownerEmails([ALICE]);

    expect(fake.queries()).toHaveLength(2);
  });

  it('when Salesforce answers 503, then the lookup fails as retryable at once, is not cached, and the next call succeeds', async () => {
    const { fake, directory } = await clientCredentialsSetup();
    fake.failQueries(1, 503);

    const failure = await directory.ownerEmails([ALICE]).catch((error: unknown) => error);
    const retried = await directory.ownerEmails([ALICE]);

    expect(failure).toBeInstanceOf(SalesforceLookupError);
    expect((failure as Error).message).toBe('Salesforce User lookup failed: SERVER_UNAVAILABLE: Service temporarily unavailable');
    expect(retried).toEqual(new Map([[ALICE, 'alice@example.com']]));
    // One query per call: jsforce's own retries are off, the job queue owns the retry schedule.
    expect(fake.queries().map((query) => query.status)).toEqual([503, 200]);
  });

  it('when Salesforce answers 500, then the lookup fails as retryable', async () => {
    const { fake, directory } = await clientCredentialsSetup();
    fake.failQueries(1, 500);

    await expect(directory.ownerEmails([BOB])).rejects.toBeInstanceOf(SalesforceLookupError);
    expect(fake.queries()).toHaveLength(1);
  });

  it('when the access token has expired, then jsforce authenticates again and repeats the query', async () => {
    const { fake, directory } = await clientCredentialsSetup();
    await directory.ownerEmails([ALICE]);
    fake.expireTokens();

    const emails = await directory.ownerEmails([BOB]);

    expect(emails).toEqual(new Map([[BOB, 'bob@example.com']]));
    expect(fake.tokenRequests()).toHaveLength(2);
    expect(fake.queries().map((query) => query.status)).toEqual([200, 401, 200]);
    const [, expired, repeated] = fake.queries();
    expect(repeated?.token).not.toBe(expired?.token);
  });

  it('when Salesforce cannot be reached, then the lookup fails as retryable', async () => {
    const { fake, directory } = await clientCredentialsSetup();
    await fake.close();
    fakes.splice(fakes.indexOf(fake), 1);

    await expect(directory.ownerEmails([ALICE])).rejects.toBeInstanceOf(SalesforceLookupError);
  });

  it('when the ids are not User ids, then nothing is asked of Salesforce', async () => {
    const { fake, directory } = await clientCredentialsSetup();

    const emails = await directory.ownerEmails(['00G8d0000001XyZAAU', 'not-an-id']);

    expect(emails).toEqual(new Map());
    expect(fake.requests).toHaveLength(0);
  });
});
