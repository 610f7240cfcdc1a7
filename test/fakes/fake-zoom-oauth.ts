import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { DEFAULT_ZOOM_SCOPES, type FakeZoomOptions, type IssuedZoomToken, PARTICIPANTS_SCOPE, type ZoomSend } from './fake-zoom-types.ts';

/**
 * The fake Zoom's Server-to-Server OAuth (docs/protocols.md §8): `POST /oauth/token` with HTTP
 * Basic client credentials issues bearer tokens that expire, and API calls are checked against
 * the tokens issued and the scopes the app was granted.
 */

export interface ZoomOAuth {
  readonly tokensIssued: IssuedZoomToken[];
  /** Answers `POST /oauth/token`. */
  handleToken(req: IncomingMessage, query: URLSearchParams, body: unknown, send: ZoomSend): void;
  /** Answers and returns false when the bearer token may not list participants; true when it may. */
  mayListParticipants(req: IncomingMessage, send: ZoomSend): boolean;
  expireTokens(): void;
}

export function createZoomOAuth(options: FakeZoomOptions, baseUrl: () => string): ZoomOAuth {
  const scopes = options.scopes ?? DEFAULT_ZOOM_SCOPES;
  const tokensIssued: IssuedZoomToken[] = [];
  return {
    tokensIssued,
    handleToken(req, query, body, send) {
      // Zoom documents the parameters in the query; a form body is read too, as OAuth clients send it.
      const form = typeof body === 'object' && body !== null ? (body as Record<string, string>) : {};
      const grantType = query.get('grant_type') ?? form.grant_type;
      const accountId = query.get('account_id') ?? form.account_id;
      const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const credentials = basic === undefined ? '' : Buffer.from(basic, 'base64').toString('utf8');
      const colon = credentials.indexOf(':');
      const clientId = colon < 0 ? '' : credentials.slice(0, colon);
      if (colon < 0 || clientId !== options.clientId || credentials.slice(colon + 1) !== options.clientSecret)
        return send(401, { reason: 'Invalid client_id or client_secret', error: 'invalid_client' });
      if (grantType !== 'account_credentials') return send(400, { reason: 'unsupported grant type', error: 'unsupported_grant_type' });
      if (accountId !== options.accountId) return send(400, { reason: 'Invalid account_id', error: 'invalid_request' });
      const expiresIn = options.tokenExpiresIn ?? 3600;
      const token: IssuedZoomToken = {
        // Zoom's access tokens are JWTs; the fake's are opaque text in the same outward form.
        accessToken: `eyJzdiI6IjAwMDAwMiIsImFsZyI6IkhTNTEyIiwidiI6IjIuMCJ9.${randomBytes(48).toString('base64url')}`,
        accountId,
        clientId,
        scope: scopes.join(' '),
        expiresAt: Date.now() + expiresIn * 1000,
      };
      tokensIssued.push(token);
      send(200, { access_token: token.accessToken, token_type: 'bearer', expires_in: expiresIn, scope: token.scope, api_url: baseUrl() });
    },
    mayListParticipants(req, send) {
      const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const issued = tokensIssued.find((token) => token.accessToken === bearer);
      if (!issued) send(401, { code: 124, message: 'Invalid access token.' });
      else if (issued.expiresAt <= Date.now()) send(401, { code: 124, message: 'Access token is expired.' });
      else if (!issued.scope.split(' ').includes(PARTICIPANTS_SCOPE))
        send(400, { code: 4711, message: `Invalid access token, does not contain scopes:[${PARTICIPANTS_SCOPE}].` });
      else return true;
      return false;
    },
    expireTokens() {
      for (const token of tokensIssued) token.expiresAt = Math.min(token.expiresAt, Date.now());
    },
  };
}
