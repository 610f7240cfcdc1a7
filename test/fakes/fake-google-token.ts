import { randomUUID, verify } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { send, unb64url } from './fake-google-replies.ts';

/**
 * The fake Google's OAuth token endpoint: it takes a service account's RS256 JWT assertion, checks
 * it against the test key's public half, and issues a bearer token acting as the assertion's `sub`.
 */

export const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';

export interface TokenEndpoint {
  readonly tokensIssued: Array<{ subject: string; scope: string }>;
  /** The user an issued bearer token acts as; undefined for a token the fake never issued. */
  subjectOf(bearer: string | undefined): string | undefined;
  handle(body: string, res: ServerResponse): void;
}

export function createTokenEndpoint(options: { serviceAccountEmail: string; publicKeyPem: string; baseUrl: () => string }): TokenEndpoint {
  const tokensIssued: Array<{ subject: string; scope: string }> = [];
  const accessTokens = new Map<string, string>();
  return {
    tokensIssued,
    subjectOf: (bearer) => (bearer === undefined ? undefined : accessTokens.get(bearer)),
    handle(body, res) {
      const form = new URLSearchParams(body);
      const [header, payload, signature] = (form.get('assertion') ?? '').split('.');
      const claims = payload ? unb64url<{ iss?: string; sub?: string; scope?: string; aud?: string; exp?: number }>(payload) : undefined;
      const signed =
        header !== undefined &&
        payload !== undefined &&
        signature !== undefined &&
        verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), options.publicKeyPem, Buffer.from(signature, 'base64url'));
      const valid =
        form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
        signed &&
        claims?.iss === options.serviceAccountEmail &&
        typeof claims.sub === 'string' &&
        (claims.aud === GOOGLE_TOKEN_AUDIENCE || claims.aud === `${options.baseUrl()}/token`) &&
        typeof claims.exp === 'number' &&
        claims.exp * 1000 > Date.now();
      if (!valid) return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      const accessToken = `ya29.fake-${randomUUID()}`;
      accessTokens.set(accessToken, claims.sub!);
      tokensIssued.push({ subject: claims.sub!, scope: claims.scope ?? '' });
      send(res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
    },
  };
}
