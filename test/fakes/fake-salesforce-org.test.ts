import { generateKeyPairSync } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { jwtBearerGrant } from '../../src/salesforce/jwt-bearer.ts';
import { askToken, CLIENT_ID, CLIENT_SECRET, clientCredentialsToken, ids, orgsClosedAfterEach, query, sfId } from './fake-salesforce-org-support.ts';

/*
 * The fake Salesforce org is the yardstick of the CRM matching tests and benchmark, so its HTTP
 * side is pinned here: OAuth 2.0 (client credentials, JWT bearer), bearer tokens on the query
 * endpoint, recorded queries, told failures, a live org, and queries refused as Salesforce
 * refuses them (docs/protocols.md §2 "SOQL"), never answered with an empty result.
 */

const startOrg = orgsClosedAfterEach();
const USER = sfId('005', 1);
const keys = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });

/** An assertion signed by the bridge's own JWT bearer signer. */
async function assertion(privateKey: string, audience: string): Promise<string> {
  let signed = '';
  await jwtBearerGrant({ clientId: CLIENT_ID, username: 'bridge@acme.test', audience, privateKey }, async (value) => {
    signed = value;
  });
  return signed;
}

describe('fake Salesforce org: OAuth and the query endpoint', () => {
  it('when the client credentials are right, then a token comes with the instance URL and the identity URL jsforce reads', async () => {
    const fake = await startOrg({ User: [] });

    const reply = await askToken(fake, { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ instance_url: fake.url, token_type: 'Bearer', id: `${fake.url}/id/00D8d0000001XyZEAU/0058d0000101XyZAAU` });
    expect((reply.body as { access_token: string }).access_token).toMatch(/^00D8d0000001XyZ!/);
  });

  it('when the client secret is wrong, then the token endpoint answers invalid_client and nothing can be queried with a made-up token', async () => {
    const fake = await startOrg({ User: [] });

    const reply = await askToken(fake, { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: 'wrong' });
    const queried = await query(fake, 'SELECT Id FROM User', 'made-up');

    expect(reply).toEqual({ status: 400, body: { error: 'invalid_client', error_description: 'invalid client credentials' } });
    expect(queried).toEqual({ status: 401, body: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }] });
  });

  it('when a JWT assertion is signed with the configured key, then it gets a token; signed with another key, then invalid_grant', async () => {
    const right = keys();
    const fake = await startOrg({ User: [{ Id: USER, Email: 'ann@acme.test' }] }, { username: 'bridge@acme.test', publicKey: right.publicKey });

    const accepted = await askToken(fake, {
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await assertion(right.privateKey, fake.url),
    });
    const refused = await askToken(fake, {
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await assertion(keys().privateKey, fake.url),
    });

    expect(accepted.status).toBe(200);
    const token = (accepted.body as { access_token: string }).access_token;
    expect((await query(fake, `SELECT Email FROM User WHERE Id = '${USER}'`, token)).status).toBe(200);
    expect(refused).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'invalid signature' } });
  });

  it('when a query comes without a bearer token, then it answers 401 INVALID_SESSION_ID, and the text is still recorded', async () => {
    const fake = await startOrg({ User: [{ Id: USER }] });

    const reply = await query(fake, 'SELECT Id FROM User', '');

    expect(reply).toEqual({ status: 401, body: [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }] });
    expect(fake.queries()).toEqual(['SELECT Id FROM User']);
  });

  it('when several queries come, then queries() lists their texts in order and resetQueries() forgets them', async () => {
    const fake = await startOrg({ User: [{ Id: USER }] });

    await query(fake, 'SELECT Id FROM User');
    await query(fake, 'SELECT Id FROM Usr');
    const before = fake.queries();
    fake.resetQueries();
    await query(fake, 'SELECT Email FROM User');

    expect(before).toEqual(['SELECT Id FROM User', 'SELECT Id FROM Usr']);
    expect(fake.queries()).toEqual(['SELECT Email FROM User']);
  });

  it('when told to fail the next two queries, then they answer 503 SERVER_UNAVAILABLE and the third answers the records', async () => {
    const fake = await startOrg({ User: [{ Id: USER }] });
    const token = await clientCredentialsToken(fake);
    fake.failNextQueries(2);

    const replies = [
      await query(fake, 'SELECT Id FROM User', token),
      await query(fake, 'SELECT Id FROM User', token),
      await query(fake, 'SELECT Id FROM User', token),
    ];

    expect(replies.map((reply) => reply.status)).toEqual([503, 503, 200]);
    expect(replies[0]?.body).toEqual([{ message: 'Service temporarily unavailable', errorCode: 'SERVER_UNAVAILABLE' }]);
  });

  it('when told to fail with 500, then the query answers UNKNOWN_EXCEPTION; with 401, then every token expires and a new one works', async () => {
    const fake = await startOrg({ User: [{ Id: USER }] });
    const token = await clientCredentialsToken(fake);
    fake.failNextQueries(1, 500);
    fake.failNextQueries(1, 401);

    const failed = await query(fake, 'SELECT Id FROM User', token);
    const expired = await query(fake, 'SELECT Id FROM User', token);
    const stillExpired = await query(fake, 'SELECT Id FROM User', token);
    const renewed = await query(fake, 'SELECT Id FROM User');

    expect(failed).toMatchObject({ status: 500, body: [{ errorCode: 'UNKNOWN_EXCEPTION' }] });
    expect([expired.status, stillExpired.status, renewed.status]).toEqual([401, 401, 200]);
  });

  it('when a test adds and changes records between queries, then the next query sees them', async () => {
    const fake = await startOrg({ Contact: [{ Id: sfId('003', 1), Email: 'ann@acme.test' }] });
    const soql = "SELECT Id FROM Contact WHERE Email LIKE '%@acme.test'";
    const before = await ids(fake, soql);

    fake.org.Contact!.push({ Id: sfId('003', 2), Email: 'bob@acme.test' });
    fake.org.Contact![0]!.Email = 'ann@elsewhere.test';

    expect(before).toEqual([sfId('003', 1)]);
    expect(await ids(fake, soql)).toEqual([sfId('003', 2)]);
  });

  it('when the org holds a malformed date, then the query answers 500 naming it rather than leaving the record out', async () => {
    const fake = await startOrg({ Opportunity: [{ Id: sfId('006', 1), CloseDate: 'soon' }] });

    const reply = await query(fake, 'SELECT Id FROM Opportunity WHERE CloseDate = TODAY');

    expect(reply).toEqual({ status: 500, body: [{ message: 'the org holds "soon" in the date field CloseDate', errorCode: 'UNKNOWN_EXCEPTION' }] });
  });

  it('when the clock is injected, then TODAY is read against it and not against the machine clock', async () => {
    const org = {
      Opportunity: [
        { Id: sfId('006', 1), CloseDate: '2026-03-02' },
        { Id: sfId('006', 2), CloseDate: '2031-07-01' },
      ],
    };
    const fake = await startOrg(org, { now: () => Date.parse('2031-07-01T23:59:59Z') });

    expect(await ids(fake, 'SELECT Id FROM Opportunity WHERE CloseDate = TODAY')).toEqual([sfId('006', 2)]);
  });
});
