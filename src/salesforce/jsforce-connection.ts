import { Connection } from 'jsforce';

import { storableValue } from '../core/storable.ts';
import { JWT_BEARER_GRANT, jwtBearerGrant } from './jwt-bearer.ts';

/**
 * One authenticated jsforce connection. Outbound messages carry no usable session id since
 * February 2026 (docs/protocols.md §2), so the bridge has its own OAuth 2.0 credentials: the JWT bearer
 * flow or the client credentials flow. Authentication is lazy (first lookup), and an expired
 * token (401) makes jsforce call our refresh function, which simply authenticates again.
 */
export type SalesforceAuth =
  | { flow: 'jwt-bearer'; loginUrl: string; clientId: string; username: string; privateKey: string }
  | { flow: 'client-credentials'; loginUrl: string; clientId: string; clientSecret: string };

export interface SalesforceApi {
  readonly flow: SalesforceAuth['flow'];
  /**
   * GETs a REST path under /services/data/vXX.X (`/query?q=…`), authenticating first when needed.
   * The answer is storable (src/core/storable.ts): a field value holding U+0000 or an unpaired
   * surrogate (an email, a name typed into the org) is cleaned here, before any lookup reads it.
   */
  get<T>(path: string): Promise<T>;
  /**
   * The session other Salesforce APIs use (the Pub/Sub API's metadata): the access token, the
   * instance URL and the org id from the token answer, authenticating first when needed.
   */
  session(): Promise<SalesforceSession>;
  /** Forgets the token and authenticates again: another API refused it (Pub/Sub's UNAUTHENTICATED). */
  reauthenticate(): Promise<SalesforceSession>;
}

export interface SalesforceSession {
  accessToken: string;
  instanceUrl: string;
  orgId: string;
}

export interface SalesforceApiOptions {
  auth: SalesforceAuth;
  /** REST API version such as 62.0. */
  apiVersion: string;
  /** Deadline of one authentication or one request. */
  timeoutMs?: number;
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export function createSalesforceApi(options: SalesforceApiOptions): SalesforceApi {
  const { auth } = options;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const connection = new Connection({
    loginUrl: auth.loginUrl,
    version: options.apiVersion,
    oauth2: { loginUrl: auth.loginUrl, clientId: auth.clientId, ...(auth.flow === 'client-credentials' ? { clientSecret: auth.clientSecret } : {}) },
    // Called by jsforce when a request answers 401 (expired or revoked token); it then repeats the request.
    refreshFn: (conn, callback) => {
      login().then(
        () => callback(null, conn.accessToken ?? undefined),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    },
  });

  function login(): Promise<void> {
    const grant =
      auth.flow === 'client-credentials'
        ? connection.authorize({ grant_type: 'client_credentials' }).then(() => undefined)
        : jwtBearerGrant({ clientId: auth.clientId, username: auth.username, audience: auth.loginUrl, privateKey: auth.privateKey }, async (assertion) => {
            await connection.authorize({ grant_type: JWT_BEARER_GRANT, assertion });
          });
    return withDeadline(grant, timeoutMs, `Salesforce ${auth.flow} authentication`);
  }

  // Every call names the bridge (docs/protocols.md, Pub/Sub): the changes it causes carry
  // `client=<SALESFORCE_CLIENT_ID>` in their changeOrigin, so its own Change Data Capture events are recognised.
  const callOptions = { 'Sforce-Call-Options': `client=${auth.clientId}` };

  let session: Promise<void> | undefined;
  const ensureSession = () =>
    (session ??= login().catch((error: unknown) => {
      session = undefined; // the next lookup tries again
      throw error;
    }));

  return {
    flow: auth.flow,
    async get<T>(path: string): Promise<T> {
      await ensureSession();
      // The job queue owns retries (RETRY_SCHEDULE, one attempt recorded per try): jsforce's own
      // retries (5 tries, up to ~15 s of backoff) would hide failures inside one attempt.
      const request = connection.request<T>({ method: 'GET', url: path, headers: callOptions }, { retry: { maxRetries: 0 }, timeout: timeoutMs });
      // Field values may carry U+0000 or unpaired surrogates (docs/protocols.md §2): made storable here, where they enter.
      return storableValue(await withDeadline(Promise.resolve(request), timeoutMs, `Salesforce GET ${path.split('?')[0]}`));
    },
    async session() {
      await ensureSession();
      return current();
    },
    async reauthenticate() {
      session = undefined;
      await ensureSession();
      return current();
    },
  };

  function current(): SalesforceSession {
    const orgId = connection.userInfo?.organizationId;
    if (!connection.accessToken || !connection.instanceUrl || !orgId)
      throw new Error('Salesforce authentication answered without an access token, instance URL or org id');
    return { accessToken: connection.accessToken, instanceUrl: connection.instanceUrl, orgId };
  }
}
