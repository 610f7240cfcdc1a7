import type { gaxios, Transporter } from 'google-auth-library';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface JwtBearerClaims {
  /** iss: the connected app's consumer key. */
  clientId: string;
  /** sub: the integration user's username. */
  username: string;
  /** aud: https://login.salesforce.com, https://test.salesforce.com or an Experience Cloud site URL. */
  audience: string;
  /** PEM private key whose certificate is uploaded to the connected app. */
  privateKey: string;
}

// Salesforce: exp must lie within 3 minutes of now; a little less leaves room for clock skew.
const ASSERTION_LIFETIME_S = 170;

/**
 * Signs a Salesforce JWT bearer assertion (RS256) and hands it to `exchange`, which posts it to
 * Salesforce's token endpoint. The signing is google-auth-library's GoogleToken (jws underneath):
 * the maintained JWT signer among our dependencies, so no JWT encoding is written here. Its
 * Google-specific parts are replaced: `aud` and `exp` through additionalClaims, and its token
 * request goes to our transporter, which forwards the assertion to Salesforce, never to Google.
 */
export async function jwtBearerGrant(claims: JwtBearerClaims, exchange: (assertion: string) => Promise<void>): Promise<void> {
  const transporter: Transporter = {
    async request<T>(options: gaxios.GaxiosOptions): Promise<gaxios.GaxiosResponse<T>> {
      const assertion = new URLSearchParams(options.data as URLSearchParams).get('assertion');
      if (assertion === null) throw new Error('JWT bearer grant: the signer produced no assertion');
      await exchange(assertion);
      // GoogleToken only keeps this response as its cached token; nothing reads it.
      return { data: {} } as unknown as gaxios.GaxiosResponse<T>;
    },
  };
  // Loaded at the first grant: a bridge whose Salesforce app uses client credentials never loads it.
  const { GoogleToken } = await import('google-auth-library');
  const token = new GoogleToken({
    key: claims.privateKey,
    iss: claims.clientId,
    sub: claims.username,
    additionalClaims: { aud: claims.audience, exp: Math.floor(Date.now() / 1000) + ASSERTION_LIFETIME_S },
    transporter,
  });
  await token.getToken({ forceRefresh: true });
}
