import { constants, createHash, randomUUID, verify, X509Certificate } from 'node:crypto';

/**
 * The Microsoft identity platform's side of app-only sign-in, as the fake login server answers
 * it: the OpenID metadata msal-node reads, and the checks of a client-credentials token request
 * (client secret, or a client assertion signed with the app certificate's key) with the
 * AADSTS errors the real endpoint gives.
 */

export interface LoginConfig {
  tenantId: string;
  /** Other names the tenant answers to, such as `contoso.onmicrosoft.com`. */
  tenantDomains: string[];
  clientId: string;
  clientSecret: string | undefined;
  /** The app's registered certificate (its public half). */
  certificate: X509Certificate | undefined;
}

export type TokenCheck = { ok: true; scope: string; credential: 'secret' | 'certificate' } | { ok: false; status: number; body: Record<string, unknown> };

export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export const knowsTenant = (config: LoginConfig, tenant: string) =>
  [config.tenantId, ...config.tenantDomains].some((name) => name.toLowerCase() === tenant.toLowerCase());

/** An error as login.microsoftonline.com writes it (`error`, `error_description`, `error_codes`, ids). */
export function aadError(error: string, code: number, description: string): Record<string, unknown> {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, 'Z');
  return {
    error,
    error_description: `AADSTS${code}: ${description} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}`,
    error_codes: [code],
    timestamp,
    trace_id: traceId,
    correlation_id: correlationId,
  };
}

export const tenantNotFound = (tenant: string) =>
  aadError('invalid_tenant', 90002, `Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`);

/** GET {login}/{tenant}/v2.0/.well-known/openid-configuration, every endpoint on the fake. */
export function openIdConfiguration(loginUrl: string, tenantId: string): Record<string, unknown> {
  const base = `${loginUrl}/${tenantId}`;
  return {
    token_endpoint: `${base}/oauth2/v2.0/token`,
    token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
    jwks_uri: `${base}/discovery/v2.0/keys`,
    response_modes_supported: ['query', 'fragment', 'form_post'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    issuer: `${base}/v2.0`,
    request_uri_parameter_supported: false,
    authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
    device_authorization_endpoint: `${base}/oauth2/v2.0/devicecode`,
    end_session_endpoint: `${base}/oauth2/v2.0/logout`,
    tenant_region_scope: 'EU',
    cloud_instance_name: 'microsoftonline.com',
    msgraph_host: 'graph.microsoft.com',
  };
}

/**
 * POST {login}/{tenant}/oauth2/v2.0/token with grant_type=client_credentials; `audiences` are the
 * token endpoint URLs a client assertion may name (the tenant by id or by domain).
 */
export function checkTokenRequest(form: URLSearchParams, tenant: string, audiences: string[], config: LoginConfig): TokenCheck {
  const fail = (status: number, error: string, code: number, description: string): TokenCheck => ({
    ok: false,
    status,
    body: aadError(error, code, description),
  });
  if (!knowsTenant(config, tenant)) return { ok: false, status: 400, body: { ...tenantNotFound(tenant), error: 'invalid_request' } };
  if (form.get('grant_type') !== 'client_credentials') return fail(400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.');
  const clientId = form.get('client_id') ?? '';
  if (clientId !== config.clientId)
    return fail(400, 'unauthorized_client', 700016, `Application with identifier '${clientId}' was not found in the directory '${tenant}'.`);
  const scope = form.get('scope') ?? '';
  // Client credentials take one resource's `.default` scope, never delegated scopes.
  if (!/^\S+\/\.default$/.test(scope))
    return fail(
      400,
      'invalid_scope',
      1002012,
      `The provided value for scope ${scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
    );
  const assertion = form.get('client_assertion');
  if (assertion !== null) {
    if (form.get('client_assertion_type') !== JWT_BEARER) return fail(400, 'invalid_request', 50027, 'Invalid client_assertion_type.');
    const problem = assertionProblem(assertion, config, audiences);
    return problem ? fail(401, 'invalid_client', problem.code, problem.description) : { ok: true, scope, credential: 'certificate' };
  }
  const secret = form.get('client_secret');
  if (secret === null)
    return fail(401, 'invalid_client', 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.");
  if (config.clientSecret === undefined || secret !== config.clientSecret)
    return fail(
      401,
      'invalid_client',
      7000215,
      `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${config.clientId}'.`,
    );
  return { ok: true, scope, credential: 'secret' };
}

const decode = <T>(part: string | undefined): T | undefined => {
  try {
    return JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as T;
  } catch {
    return undefined;
  }
};

/**
 * Checks a client assertion the way Entra ID does: the header names the registered certificate
 * by thumbprint (`x5t#S256`, or SHA-1 `x5t`), the signature (PS256 from msal-node with a SHA-256
 * thumbprint, RS256 with SHA-1) verifies with its public key, `iss` = `sub` = the client id,
 * `aud` is the token endpoint, and the assertion is within its time range.
 */
export function assertionProblem(jwt: string, config: LoginConfig, audiences: string[]): { code: number; description: string } | undefined {
  const [encodedHeader, encodedPayload, signature, ...rest] = jwt.split('.');
  const header = decode<{ alg?: string; 'x5t#S256'?: string; x5t?: string; x5c?: string[] }>(encodedHeader);
  const claims = decode<{ aud?: string; iss?: string; sub?: string; exp?: number; nbf?: number; jti?: string }>(encodedPayload);
  if (!header || !claims || signature === undefined || rest.length > 0) return { code: 50027, description: 'JWT token is invalid or is malformed.' };
  const certificate = config.certificate;
  const thumbprintOf = (algorithm: 'sha256' | 'sha1') => (certificate ? createHash(algorithm).update(certificate.raw).digest('base64url') : undefined);
  const named =
    header['x5t#S256'] !== undefined ? header['x5t#S256'] === thumbprintOf('sha256') : header.x5t !== undefined && header.x5t === thumbprintOf('sha1');
  if (!certificate || !named)
    return {
      code: 700027,
      description: `The certificate with identifier used to sign the client assertion is not registered on application. [Reason - The key was not found., Thumbprint of key used by client: '${header['x5t#S256'] ?? header.x5t ?? ''}']`,
    };
  if (header.x5c !== undefined && header.x5c[0] !== certificate.raw.toString('base64'))
    return { code: 700027, description: 'Client assertion contains an invalid signature. [Reason - The x5c certificate does not match the registered one.]' };
  const data = Buffer.from(`${encodedHeader}.${encodedPayload}`);
  const signatureBytes = Buffer.from(signature, 'base64url');
  const signed =
    header.alg === 'PS256'
      ? verify(
          'sha256',
          data,
          { key: certificate.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
          signatureBytes,
        )
      : header.alg === 'RS256' && verify('RSA-SHA256', data, certificate.publicKey, signatureBytes);
  if (!signed) return { code: 700027, description: `Client assertion failed signature validation. [Reason - alg ${header.alg ?? 'none'}]` };
  if (claims.iss !== config.clientId || claims.sub !== config.clientId)
    return {
      code: 700021,
      description: `Client assertion application identifier doesn't match 'client_id' parameter. iss: '${claims.iss}', sub: '${claims.sub}'.`,
    };
  if (!audiences.includes(claims.aud ?? '')) return { code: 50027, description: `Invalid JWT token. Audience '${claims.aud}' is not the token endpoint.` };
  const nowSeconds = Date.now() / 1000;
  // Entra ID allows five minutes of clock skew on nbf.
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds || (claims.nbf ?? 0) > nowSeconds + 300)
    return { code: 700024, description: 'Client assertion is not within its valid time range.' };
  return undefined;
}
