import { describe, expect, it } from 'vitest';

import { createSalesforceApi } from '../../src/salesforce/jsforce-connection.ts';
import { bridgeOrg } from '../fakes/fake-salesforce-org-fixture.ts';
import { CLIENT_ID, CLIENT_SECRET, orgsClosedAfterEach } from '../fakes/fake-salesforce-org-support.ts';

/*
 * The Salesforce connection names the bridge on every call (so its own changes are recognised in
 * Change Data Capture events) and hands its session to the Pub/Sub API: token, instance URL and
 * the org id of the token answer (docs/protocols.md, Pub/Sub).
 */

const startOrg = orgsClosedAfterEach();

async function connected() {
  const fake = await startOrg(bridgeOrg());
  const api = createSalesforceApi({
    auth: { flow: 'client-credentials', loginUrl: fake.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    apiVersion: '62.0',
  });
  return { fake, api };
}

describe('the Salesforce connection', () => {
  it('when it queries, then every call carries Sforce-Call-Options naming the bridge’s client id', async () => {
    const { fake, api } = await connected();

    await api.get('/query?q=SELECT+Id+FROM+Account');
    await api.get('/query?q=SELECT+Id+FROM+Contact');

    expect(fake.callOptions()).toEqual([`client=${CLIENT_ID}`, `client=${CLIENT_ID}`]);
  });

  it('when another API asks for the session, then it gets the token, the instance URL and the org id of the token answer; reauthenticating gives a new token', async () => {
    const { fake, api } = await connected();

    const session = await api.session();
    const again = await api.session();
    const renewed = await api.reauthenticate();

    expect(session).toEqual({ accessToken: expect.stringMatching(/^00D/), instanceUrl: fake.url, orgId: '00D8d0000001XyZEAU' });
    expect(again.accessToken).toBe(session.accessToken);
    expect(renewed.accessToken).not.toBe(session.accessToken);
    expect(renewed.orgId).toBe('00D8d0000001XyZEAU');
  });
});
