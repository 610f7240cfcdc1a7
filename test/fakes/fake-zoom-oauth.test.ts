import { describe, expect, it } from 'vitest';

import { ACCOUNT, askToken, CLIENT, useZoomKit } from './support/fake-zoom-kit.ts';

/* The fake Zoom's Server-to-Server OAuth, pinned against docs/protocols.md §8. */

const { fakeZoom } = useZoomKit();

describe('fake Zoom Server-to-Server OAuth', () => {
  it('when the client asks with the right credentials and account, then a bearer token for an hour is issued and recorded', async () => {
    // Arrange
    const fake = await fakeZoom();

    // Act
    const reply = await askToken(fake);

    // Assert
    expect(fake.oauthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/token$/);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      access_token: expect.stringMatching(/^eyJ/) as string,
      token_type: 'bearer',
      expires_in: 3600,
      scope: expect.stringContaining('meeting:read:list_past_participants:admin') as string,
      api_url: fake.url,
    });
    expect(`${String(reply.body.api_url)}/v2`).toBe(fake.apiUrl);
    expect(fake.tokensIssued).toEqual([expect.objectContaining({ accessToken: reply.body.access_token, accountId: ACCOUNT, clientId: CLIENT })]);
    expect(fake.requestsOf('token')[0]).toMatchObject({ method: 'POST', query: { grant_type: 'account_credentials', account_id: ACCOUNT }, status: 200 });
  });

  it('when the client secret is wrong, then 401 invalid_client and no token', async () => {
    const fake = await fakeZoom();

    const reply = await askToken(fake, { id: CLIENT, secret: 'wrong' });

    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ reason: 'Invalid client_id or client_secret', error: 'invalid_client' });
    expect(fake.tokensIssued).toEqual([]);
  });

  it('when the account id is wrong, then 400 invalid_request and no token', async () => {
    const fake = await fakeZoom();

    const reply = await askToken(fake, undefined, 'someone-else');

    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ reason: 'Invalid account_id', error: 'invalid_request' });
    expect(fake.tokensIssued).toEqual([]);
  });

  it('when the token endpoint is scripted to answer 429 once, then the first ask gets it with Retry-After and the second a token', async () => {
    const fake = await fakeZoom();
    fake.fail('token', 429);

    const first = await askToken(fake);
    const second = await askToken(fake);

    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('1');
    expect(second.status).toBe(200);
    expect(fake.tokensIssued).toHaveLength(1);
  });
});
