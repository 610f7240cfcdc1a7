import { randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';
import { createCalendarStore, type GraphEvent, type GraphEventInput, type Mailbox } from './fake-microsoft-calendar.ts';
import { aadError, checkTokenRequest, knowsTenant, type LoginConfig, openIdConfiguration, tenantNotFound } from './fake-microsoft-login.ts';
import { graphInstant, parseClientInstant } from './fake-microsoft-time.ts';
import { deliver, type Delivery, validateEndpoint, type ValidationAttempt, validationTokenFor } from './fake-microsoft-webhooks.ts';
import { TEST_CERT_FILE, TEST_KEY_FILE } from './trust-test-ca.ts';

/**
 * A fake Microsoft 365 on loopback, in two servers:
 * - the identity platform's login host over HTTPS with the test certificate (msal-node accepts
 *   only `https:` authorities; call `trustTestCertificate()` first): OpenID metadata and the
 *   client-credentials token endpoint, checking a client secret or a certificate-signed assertion;
 * - Microsoft Graph over plain HTTP: subscriptions (create with Graph's endpoint validation,
 *   renew, reauthorize, delete), calendarView delta rounds, single events, per-mailbox
 *   concurrency and scripted failures.
 * It records every request, and sends change and lifecycle notifications to the bridge as Graph does.
 */

export type { Delivery, GraphEvent, GraphEventInput, ValidationAttempt };
export type MicrosoftFailureTarget = 'metadata' | 'token' | 'create' | 'renew' | 'reauthorize' | 'delete' | 'list' | 'delta' | 'event';
export type ChangeType = 'created' | 'updated' | 'deleted';
export type LifecycleEvent = 'reauthorizationRequired' | 'subscriptionRemoved' | 'missed';

export interface FakeMicrosoftOptions {
  tenantId: string;
  /** Other names the tenant answers to in the authority, such as `contoso.onmicrosoft.com`. */
  tenantDomains?: string[];
  clientId: string;
  clientSecret?: string;
  /** The app's client certificate, PEM (a private key in the same text is ignored), for signed client assertions. */
  clientCertificatePem?: string;
  /** Mailbox addresses of the tenant; more with `addMailbox`. */
  mailboxes?: string[];
  /** Delta page size when the request has no `Prefer: odata.maxpagesize` (default 2). */
  pageSize?: number;
  /** Delay of every calendarView/delta answer, so concurrent calls overlap (default 0). */
  latencyMs?: number;
  /** When set, more requests than this in flight for one mailbox answer 429 ApplicationThrottled (Outlook allows 4). */
  concurrencyLimit?: number;
  /** How long Graph waits for a validation answer (default 10 000 ms, as Graph). */
  validationTimeoutMs?: number;
  /** How long `notify` and `lifecycle` wait for the bridge's answer before rejecting (default 15 000 ms). */
  deliveryTimeoutMs?: number;
}

export interface RecordedMicrosoftRequest {
  server: 'login' | 'graph';
  target: MicrosoftFailureTarget | undefined;
  method: string;
  path: string;
  query: Record<string, string>;
  /** JSON bodies parsed, form bodies (the token endpoint) as an object of fields, others as text. */
  body: unknown;
  headers: { authorization?: string; prefer?: string; 'content-type'?: string; 'client-request-id'?: string; 'user-agent'?: string };
  /** The mailbox address the request concerned, when it concerned one. */
  mailbox: string | undefined;
  /** The status the fake answered, once it has. */
  status: number | undefined;
  at: number;
}

export interface IssuedToken {
  scope: string;
  credential: 'secret' | 'certificate';
  accessToken: string;
  expiresAt: number;
}

export interface FakeSubscription {
  id: string;
  resource: string;
  /** The mailbox address and its object id (what notifications name in `resource`). */
  mailbox: string;
  userId: string;
  changeType: string;
  notificationUrl: string;
  lifecycleNotificationUrl: string | undefined;
  clientState: string | undefined;
  expirationDateTime: string;
  applicationId: string;
  creatorId: string;
  /** Gone: deleted by the client (`removedBy: 'client'`) or removed by Graph (`'graph'`, the subscriptionRemoved lifecycle event). */
  deleted: boolean;
  removedBy: 'client' | 'graph' | undefined;
  renewals: number;
  reauthorizations: number;
  reauthorizationRequired: boolean;
}

export interface FakeMicrosoft {
  start(): Promise<{ loginUrl: string; graphUrl: string }>;
  /** `https://127.0.0.1:<port>` */
  readonly loginUrl: string;
  /** `http://127.0.0.1:<port>/v1.0` */
  readonly graphUrl: string;
  /** `${loginUrl}/${tenantId}`: the authority for msal-node. */
  readonly authority: string;
  /** `127.0.0.1:<port>`: what msal-node's `knownAuthorities` must hold (with the port), or it asks login.microsoftonline.com. */
  readonly knownAuthority: string;
  readonly tokenUrl: string;
  readonly tenantId: string;
  readonly requests: RecordedMicrosoftRequest[];
  readonly subscriptions: Map<string, FakeSubscription>;
  readonly tokensIssued: IssuedToken[];
  /** Every validation request sent on subscription create, with what the endpoint answered. */
  readonly validations: ValidationAttempt[];
  /** Adds a mailbox (idempotent); resolves its object id (by default derived from the address). */
  addMailbox(address: string, userId?: string): string;
  userIdOf(mailbox: string): string;
  /** Adds or changes an event (defaults filled, kept fields merged, lastModifiedDateTime and etag bumped); returns it as stored. */
  upsertEvent(mailbox: string, event: GraphEventInput): GraphEvent;
  deleteEvent(mailbox: string, eventId: string): void;
  /** The live events of a mailbox as stored (in their own time zones). */
  eventsOf(mailbox: string): GraphEvent[];
  /** Every delta and skip token issued so far for the mailbox answers 410 Gone (`syncStateNotFound`) from now on. */
  invalidateDeltaTokens(mailbox: string): void;
  /**
   * The mailbox's delta calls answer 200 with what `answer` returns (given the query and the delta URL), instead
   * of the calendar's round, whenever it returns a page: a nextLink chain that never ends, a link to another host.
   */
  scriptDelta(mailbox: string, answer: ((query: Record<string, string>, deltaUrl: string) => object | undefined) | undefined): void;
  /** The highest number of Graph requests concerning the mailbox that were in flight at once. */
  maxConcurrentRequests(mailbox: string): number;
  /** Every access token issued so far is refused by Graph from now on, as when it expires. */
  expireAccessTokens(): void;
  /**
   * After `after` more good calls (default 0), the next `times` calls of `target` answer `status`
   * with `body` (default: the service's error shape) and `headers` (default for 429: `Retry-After: 1`).
   */
  fail(target: MicrosoftFailureTarget, status: number, options?: { times?: number; after?: number; headers?: Record<string, string>; body?: unknown }): void;
  /** POSTs a change notification for one event to the subscription's notificationUrl, as Graph does. */
  notify(
    subscriptionId: string,
    changeType: ChangeType,
    eventId: string,
    options?: { clientState?: string; extraItems?: object[]; raw?: string },
  ): Promise<Delivery>;
  /** One POST carrying items of several subscriptions (they must share a notificationUrl). */
  notifyBatch(items: Array<{ subscriptionId: string; changeType: ChangeType; eventId: string; clientState?: string }>): Promise<Delivery>;
  /** POSTs a lifecycle notification to the subscription's lifecycleNotificationUrl; subscriptionRemoved also removes it. */
  lifecycle(subscriptionId: string, event: LifecycleEvent, options?: { clientState?: string; raw?: string }): Promise<Delivery>;
  requestsOf(target: MicrosoftFailureTarget): RecordedMicrosoftRequest[];
  close(): Promise<void>;
}

interface Failure {
  target: MicrosoftFailureTarget;
  status: number;
  headers: Record<string, string> | undefined;
  body: unknown;
  skip: number;
}
type Send = (status: number, body?: unknown, headers?: Record<string, string>) => void;
type RequestIds = { requestId: string; clientRequestId: string };

/** Graph's own content type for JSON answers; a client must not expect exactly `application/json`. */
const GRAPH_JSON = 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8';
/** The resources whose tokens Graph accepts: its URI and its application id. */
const GRAPH_SCOPES = ['https://graph.microsoft.com/.default', '00000003-0000-0000-c000-000000000000/.default'];
const MAX_EXPIRATION_MINUTES = 10_080;
const MIN_EXPIRATION_MINUTES = 45;

export function createFakeMicrosoft(options: FakeMicrosoftOptions): FakeMicrosoft {
  const login: LoginConfig = {
    tenantId: options.tenantId,
    tenantDomains: options.tenantDomains ?? [],
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    certificate: options.clientCertificatePem === undefined ? undefined : new X509Certificate(options.clientCertificatePem),
  };
  const store = createCalendarStore({ pageSize: options.pageSize ?? 2 });
  for (const address of options.mailboxes ?? []) store.addMailbox(address);
  const requests: RecordedMicrosoftRequest[] = [];
  const tokensIssued: IssuedToken[] = [];
  const subscriptions = new Map<string, FakeSubscription>();
  const validations: ValidationAttempt[] = [];
  const failures: Failure[] = [];
  const concurrency = new Map<Mailbox, { inFlight: number; max: number }>();
  const deltaScripts = new Map<Mailbox, (query: Record<string, string>, deltaUrl: string) => object | undefined>();
  // The service principal of the app in the tenant: Graph reports it as a subscription's creatorId.
  const servicePrincipalId = randomUUID();
  let loginServer: Server | undefined;
  let graphServer: Server | undefined;
  let loginUrl = '';
  let graphUrl = '';

  const takeFailure = (target: MicrosoftFailureTarget) => {
    const index = failures.findIndex((failure) => failure.target === target);
    const failure = failures[index];
    if (failure === undefined) return undefined;
    if (failure.skip > 0) {
      // Calls still to let through before this failure; every later failure of the target waits behind it.
      failure.skip -= 1;
      return undefined;
    }
    return failures.splice(index, 1)[0];
  };
  const graphError = (code: string, message: string, ids: RequestIds) => ({
    error: {
      code,
      message,
      innerError: { date: new Date().toISOString().replace(/\.\d{3}Z$/, ''), 'request-id': ids.requestId, 'client-request-id': ids.clientRequestId },
    },
  });
  const live = (subscription: FakeSubscription | undefined) =>
    subscription !== undefined && !subscription.deleted && Date.parse(subscription.expirationDateTime) > Date.now() ? subscription : undefined;
  const resourceOf = (subscription: FakeSubscription) => ({
    '@odata.context': `${graphUrl}/$metadata#subscriptions/$entity`,
    id: subscription.id,
    resource: subscription.resource,
    applicationId: subscription.applicationId,
    changeType: subscription.changeType,
    clientState: subscription.clientState ?? null,
    notificationUrl: subscription.notificationUrl,
    notificationQueryOptions: null,
    lifecycleNotificationUrl: subscription.lifecycleNotificationUrl ?? null,
    expirationDateTime: subscription.expirationDateTime,
    creatorId: servicePrincipalId,
    includeResourceData: false,
    latestSupportedTlsVersion: 'v1_2',
    encryptionCertificate: null,
    encryptionCertificateId: null,
    notificationUrlAppId: null,
  });

  /** Graph's rule for a requested expiration: in the future, at most 10 080 minutes away; under 45 minutes is raised to 45. */
  const expirationFrom = (value: unknown): number | undefined => {
    const requested = parseClientInstant(value);
    const now = Date.now();
    if (Number.isNaN(requested) || requested <= now || requested > now + MAX_EXPIRATION_MINUTES * 60_000) return undefined;
    return Math.max(requested, now + MIN_EXPIRATION_MINUTES * 60_000);
  };

  function handleLogin(method: string, path: string, raw: string, record: RecordedMicrosoftRequest, send: Send) {
    const metadata = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(path);
    const keys = /^\/([^/]+)\/discovery\/v2\.0\/keys$/.exec(path);
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path);
    record.target = token ? 'token' : metadata || keys ? 'metadata' : undefined;
    if (record.target === undefined) return send(404, aadError('invalid_request', 90027, `No such endpoint on the fake login server: ${path}`));
    if (method !== (token ? 'POST' : 'GET'))
      return send(405, aadError('invalid_request', 900561, `The endpoint only accepts ${token ? 'POST' : 'GET'} requests.`));
    const failure = takeFailure(record.target);
    if (failure) return sendFailure(send, failure, aadError('temporarily_unavailable', 90033, 'A transient error has occurred. Please try again.'));
    const tenant = decodeURIComponent((metadata ?? keys ?? token)![1]!);
    if (metadata || keys) {
      if (!knowsTenant(login, tenant)) return send(400, tenantNotFound(tenant));
      return send(200, metadata ? openIdConfiguration(loginUrl, options.tenantId) : { keys: [] });
    }
    // msal-node names the token endpoint with the tenant as the authority wrote it, id or domain; Entra ID takes both.
    const audiences = [tenant, options.tenantId].map((name) => `${loginUrl}/${name}/oauth2/v2.0/token`);
    const check = checkTokenRequest(new URLSearchParams(raw), tenant, audiences, login);
    if (!check.ok) return send(check.status, check.body);
    const accessToken = randomBytes(48).toString('base64url');
    tokensIssued.push({ scope: check.scope, credential: check.credential, accessToken, expiresAt: Date.now() + 3_599_000 });
    send(200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: accessToken });
  }

  function sendFailure(send: Send, failure: Failure, defaultBody: unknown) {
    const headers = failure.headers ?? (failure.status === 429 ? { 'retry-after': '1' } : {});
    send(failure.status, failure.body ?? defaultBody, headers);
  }

  /** Which Graph operation a request is, and the mailbox it concerns. */
  function classify(
    method: string,
    path: string,
    body: unknown,
  ): { target: MicrosoftFailureTarget | undefined; mailbox: Mailbox | undefined; segments: string[] } {
    const subscriptionMailbox = (id: string | undefined) => store.find(subscriptions.get(id ?? '')?.mailbox ?? '');
    let match = /^\/v1\.0\/subscriptions$/.exec(path);
    if (match) {
      const resource = (body as { resource?: unknown } | undefined)?.resource;
      const user = typeof resource === 'string' ? /^\/?users\/([^/]+)\/events$/i.exec(resource)?.[1] : undefined;
      return { target: method === 'POST' ? 'create' : method === 'GET' ? 'list' : undefined, mailbox: user ? store.find(user) : undefined, segments: [] };
    }
    if ((match = /^\/v1\.0\/subscriptions\/([^/]+)$/.exec(path))) {
      const target = ({ PATCH: 'renew', DELETE: 'delete', GET: 'list' } as const)[method as 'PATCH' | 'DELETE' | 'GET'];
      return { target, mailbox: subscriptionMailbox(match[1]), segments: [match[1]!] };
    }
    if ((match = /^\/v1\.0\/subscriptions\/([^/]+)\/reauthorize$/.exec(path)))
      return { target: method === 'POST' ? 'reauthorize' : undefined, mailbox: subscriptionMailbox(match[1]), segments: [match[1]!] };
    if ((match = /^\/v1\.0\/users\/([^/]+)\/calendarview\/delta$/i.exec(path)))
      return { target: method === 'GET' ? 'delta' : undefined, mailbox: store.find(decodeURIComponent(match[1]!)), segments: [match[1]!] };
    if ((match = /^\/v1\.0\/users\/([^/]+)\/events\/([^/]+)$/i.exec(path)))
      return { target: method === 'GET' ? 'event' : undefined, mailbox: store.find(decodeURIComponent(match[1]!)), segments: [match[1]!, match[2]!] };
    return { target: undefined, mailbox: undefined, segments: [] };
  }

  async function handleGraph(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    body: unknown,
    record: RecordedMicrosoftRequest,
    send: Send,
    ids: RequestIds,
  ) {
    const error = (status: number, code: string, message: string) => send(status, graphError(code, message, ids));
    const { target, mailbox, segments } = classify(record.method, url.pathname, body);
    record.target = target;
    record.mailbox = mailbox?.address;
    if (mailbox) {
      const counter = concurrency.get(mailbox) ?? { inFlight: 0, max: 0 };
      concurrency.set(mailbox, counter);
      counter.inFlight += 1;
      counter.max = Math.max(counter.max, counter.inFlight);
      res.once('close', () => (counter.inFlight -= 1));
      if (options.concurrencyLimit !== undefined && counter.inFlight > options.concurrencyLimit)
        return send(429, graphError('ApplicationThrottled', 'Application is over its MailboxConcurrency limit.', ids), { 'retry-after': '1' });
    }
    if (target === undefined) return error(400, 'BadRequest', `Resource not found for the segment '${url.pathname.split('/').at(-1) ?? ''}'.`);
    if (target === 'delta' && options.latencyMs) await sleep(options.latencyMs);
    const failure = takeFailure(target);
    if (failure) {
      const code =
        failure.status === 429 ? 'TooManyRequests' : failure.status === 404 ? 'ResourceNotFound' : failure.status >= 500 ? 'ServiceUnavailable' : 'BadRequest';
      return sendFailure(send, failure, graphError(code, 'Scripted failure of the fake Microsoft Graph.', ids));
    }
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const issued = tokensIssued.find((token) => token.accessToken === bearer);
    const unauthorised = (message: string) =>
      send(401, graphError('InvalidAuthenticationToken', message, ids), {
        'www-authenticate':
          'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"',
      });
    if (bearer === undefined) return unauthorised('Access token is empty.');
    if (!issued) return unauthorised('Access token validation failure. Invalid token.');
    if (issued.expiresAt <= Date.now()) return unauthorised('Lifetime validation failed, the token is expired.');
    if (!GRAPH_SCOPES.includes(issued.scope)) return unauthorised('Access token validation failure. Invalid audience.');

    const subscription = live(subscriptions.get(segments[0] ?? ''));
    const notFound = () => error(404, 'ResourceNotFound', 'The object was not found.');
    switch (target) {
      case 'create':
        return handleCreate(body, mailbox, error, send);
      case 'list':
        if (segments[0] === undefined)
          return send(200, {
            '@odata.context': `${graphUrl}/$metadata#subscriptions`,
            value: [...subscriptions.values()].filter((item) => live(item)).map(resourceOf),
          });
        return subscription ? send(200, resourceOf(subscription)) : notFound();
      case 'renew': {
        if (!subscription) return notFound();
        const expiresAt = expirationFrom((body as { expirationDateTime?: unknown } | undefined)?.expirationDateTime);
        if (expiresAt === undefined) return error(400, 'InvalidRequest', 'Subscription expiration can only be 10080 minutes in the future.');
        subscription.expirationDateTime = graphInstant(expiresAt);
        subscription.renewals += 1;
        subscription.reauthorizationRequired = false;
        return send(200, resourceOf(subscription));
      }
      case 'reauthorize':
        if (!subscription) return notFound();
        subscription.reauthorizations += 1;
        subscription.reauthorizationRequired = false;
        return send(200);
      case 'delete':
        if (!subscription) return notFound();
        subscription.deleted = true;
        subscription.removedBy = 'client';
        return send(204);
      case 'delta':
      case 'event': {
        if (!mailbox) return error(404, 'ErrorInvalidUser', `The requested user '${decodeURIComponent(segments[0] ?? '')}' is invalid.`);
        const prefer = parsePrefer(req.headers.prefer);
        if (target === 'event') {
          const event = store.getEvent(mailbox, decodeURIComponent(segments[1] ?? ''), prefer.timeZone);
          if (!event) return error(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
          return send(200, { '@odata.context': `${graphUrl}/$metadata#users('${mailbox.address}')/events/$entity`, ...event });
        }
        const selfUrl = `${graphUrl}/users/${segments[0]}/calendarView/delta`;
        const scripted = deltaScripts.get(mailbox)?.(Object.fromEntries(url.searchParams), selfUrl);
        if (scripted !== undefined) return send(200, { '@odata.context': `${graphUrl}/$metadata#Collection(event)`, ...scripted });
        const answer = store.delta(mailbox, Object.fromEntries(url.searchParams), { pageSize: prefer.maxPageSize, timeZone: prefer.timeZone, selfUrl });
        if (answer.status !== 200) {
          const { code, message } = (answer.body as { error: { code: string; message: string } }).error;
          return error(answer.status, code, message);
        }
        return send(200, answer.body, answer.headers);
      }
    }
  }

  async function handleCreate(body: unknown, mailbox: Mailbox | undefined, error: (status: number, code: string, message: string) => void, send: Send) {
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const { changeType, notificationUrl, lifecycleNotificationUrl, resource, expirationDateTime, clientState } = input;
    for (const [name, value] of Object.entries({ changeType, notificationUrl, resource, expirationDateTime }))
      if (typeof value !== 'string' || value === '') return error(400, 'InvalidRequest', `Required property '${name}' is missing or empty.`);
    if (
      !String(changeType)
        .split(',')
        .every((kind) => ['created', 'updated', 'deleted'].includes(kind.trim()))
    )
      return error(400, 'InvalidRequest', `'${String(changeType)}' is not a valid changeType for events.`);
    if (!mailbox) return error(404, 'ResourceNotFound', `Resource '${String(resource)}' was not found: no such user or mailbox.`);
    const urls = [notificationUrl, ...(lifecycleNotificationUrl === undefined || lifecycleNotificationUrl === null ? [] : [lifecycleNotificationUrl])];
    if (!urls.every((value) => typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)))
      return error(400, 'InvalidRequest', 'The notificationUrl and lifecycleNotificationUrl must be absolute http(s) URLs.');
    const expiresAt = expirationFrom(expirationDateTime);
    if (expiresAt === undefined) return error(400, 'InvalidRequest', 'Subscription expiration can only be 10080 minutes in the future.');
    if (clientState !== undefined && clientState !== null && (typeof clientState !== 'string' || clientState.length > 128))
      return error(400, 'InvalidRequest', 'The clientState must be a string of at most 128 characters.');
    // Graph validates every endpoint before it creates anything (the lifecycle URL too, separately).
    for (const endpoint of urls as string[]) {
      const attempt = await validateEndpoint(endpoint, validationTokenFor(randomUUID()), options.validationTimeoutMs ?? 10_000);
      validations.push(attempt);
      if (attempt.problem !== undefined) return error(400, 'ValidationError', attempt.problem);
    }
    const subscription: FakeSubscription = {
      id: randomUUID(),
      resource: String(resource),
      mailbox: mailbox.address,
      userId: mailbox.userId,
      changeType: String(changeType),
      notificationUrl: String(notificationUrl),
      lifecycleNotificationUrl: urls[1] as string | undefined,
      clientState: (clientState as string | null | undefined) ?? undefined,
      expirationDateTime: graphInstant(expiresAt),
      applicationId: options.clientId,
      creatorId: servicePrincipalId,
      deleted: false,
      removedBy: undefined,
      renewals: 0,
      reauthorizations: 0,
      reauthorizationRequired: false,
    };
    subscriptions.set(subscription.id, subscription);
    send(201, resourceOf(subscription));
  }

  const onRequest = (side: 'login' | 'graph') => async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const contentType = req.headers['content-type'] ?? '';
    let body: unknown = raw === '' ? undefined : raw;
    if (/x-www-form-urlencoded/i.test(contentType)) body = Object.fromEntries(new URLSearchParams(raw));
    else if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        // not JSON: kept as text
      }
    }
    const pick = (name: 'authorization' | 'prefer' | 'content-type' | 'client-request-id' | 'user-agent') => {
      const value = req.headers[name];
      return typeof value === 'string' ? { [name]: value } : {};
    };
    const record: RecordedMicrosoftRequest = {
      server: side,
      target: undefined,
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body,
      headers: { ...pick('authorization'), ...pick('prefer'), ...pick('content-type'), ...pick('client-request-id'), ...pick('user-agent') },
      mailbox: undefined,
      status: undefined,
      at: Date.now(),
    };
    requests.push(record);
    // Graph answers with its own request-id and echoes the client's client-request-id (or its own id).
    const requestId = randomUUID();
    const clientRequestId = typeof req.headers['client-request-id'] === 'string' ? req.headers['client-request-id'] : requestId;
    const send: Send = (status, payload, headers = {}) => {
      record.status = status;
      if (res.headersSent) return;
      const isError = status >= 400;
      const type = side === 'login' ? 'application/json; charset=utf-8' : isError ? 'application/json' : GRAPH_JSON;
      res.writeHead(status, {
        ...(payload === undefined ? {} : { 'content-type': type }),
        ...(side === 'graph' ? { 'request-id': requestId, 'client-request-id': clientRequestId } : {}),
        ...headers,
      });
      res.end(payload === undefined ? '' : typeof payload === 'string' ? payload : JSON.stringify(payload));
    };
    try {
      if (side === 'login') handleLogin(record.method, url.pathname, raw, record, send);
      else await handleGraph(req, res, url, body, record, send, { requestId, clientRequestId });
    } catch (error) {
      send(500, side === 'login' ? aadError('server_error', 90000, String(error)) : { error: { code: 'generalException', message: String(error) } });
    }
  };

  const mailboxOf = (idOrAddress: string) => {
    const mailbox = store.find(idOrAddress);
    if (!mailbox) throw new Error(`fake Microsoft has no mailbox ${idOrAddress}`);
    return mailbox;
  };
  const subscriptionOf = (id: string) => {
    const subscription = subscriptions.get(id);
    if (!subscription || subscription.deleted) throw new Error(`fake Microsoft has no live subscription ${id}`);
    return subscription;
  };
  const changeItem = (item: { subscriptionId: string; changeType: ChangeType; eventId: string; clientState?: string }) => {
    const subscription = subscriptionOf(item.subscriptionId);
    const resource = `Users/${subscription.userId}/Events/${item.eventId}`;
    const etag = store.getEvent(mailboxOf(subscription.mailbox), item.eventId)?.['@odata.etag'] ?? `W/"${randomBytes(24).toString('base64')}"`;
    return {
      subscription,
      item: {
        subscriptionId: subscription.id,
        subscriptionExpirationDateTime: subscription.expirationDateTime,
        changeType: item.changeType,
        resource,
        resourceData: { '@odata.type': '#Microsoft.Graph.Event', '@odata.id': resource, '@odata.etag': etag, id: item.eventId },
        clientState: item.clientState ?? subscription.clientState ?? null,
        tenantId: options.tenantId,
      },
    };
  };
  const deliveryTimeout = () => options.deliveryTimeoutMs ?? 15_000;

  return {
    async start() {
      loginServer = createHttpsServer(
        { cert: readFileSync(TEST_CERT_FILE), key: readFileSync(TEST_KEY_FILE) },
        (req, res) => void onRequest('login')(req, res),
      );
      loginUrl = (await listenOnLoopback(loginServer)).url.replace(/^http:/, 'https:');
      graphServer = createServer((req, res) => void onRequest('graph')(req, res));
      graphUrl = `${(await listenOnLoopback(graphServer)).url}/v1.0`;
      return { loginUrl, graphUrl };
    },
    get loginUrl() {
      return loginUrl;
    },
    get graphUrl() {
      return graphUrl;
    },
    get authority() {
      return `${loginUrl}/${options.tenantId}`;
    },
    get knownAuthority() {
      return new URL(loginUrl).host;
    },
    get tokenUrl() {
      return `${loginUrl}/${options.tenantId}/oauth2/v2.0/token`;
    },
    tenantId: options.tenantId,
    requests,
    subscriptions,
    tokensIssued,
    validations,
    addMailbox: (address, userId) => store.addMailbox(address, userId).userId,
    userIdOf: (mailbox) => mailboxOf(mailbox).userId,
    upsertEvent: (mailbox, event) => store.upsertEvent(mailbox, event),
    deleteEvent: (mailbox, eventId) => store.deleteEvent(mailbox, eventId),
    eventsOf: (mailbox) => store.eventsOf(mailbox),
    invalidateDeltaTokens: (mailbox) => store.invalidate(mailbox),
    scriptDelta(mailbox, answer) {
      if (answer === undefined) deltaScripts.delete(mailboxOf(mailbox));
      else deltaScripts.set(mailboxOf(mailbox), answer);
    },
    maxConcurrentRequests: (mailbox) => concurrency.get(mailboxOf(mailbox))?.max ?? 0,
    expireAccessTokens() {
      for (const token of tokensIssued) token.expiresAt = Math.min(token.expiresAt, Date.now());
    },
    fail(target, status, failOptions = {}) {
      for (let i = 0; i < (failOptions.times ?? 1); i += 1) {
        failures.push({ target, status, headers: failOptions.headers, body: failOptions.body, skip: i === 0 ? (failOptions.after ?? 0) : 0 });
      }
    },
    async notify(subscriptionId, changeType, eventId, notifyOptions = {}) {
      const { subscription, item } = changeItem({ subscriptionId, changeType, eventId, clientState: notifyOptions.clientState });
      const body = notifyOptions.raw ?? JSON.stringify({ value: [item, ...(notifyOptions.extraItems ?? [])] });
      return deliver(subscription.notificationUrl, body, deliveryTimeout());
    },
    async notifyBatch(items) {
      const built = items.map(changeItem);
      const url = built[0]?.subscription.notificationUrl;
      if (url === undefined || built.some(({ subscription }) => subscription.notificationUrl !== url))
        throw new Error('fake Microsoft batches only items of subscriptions that share one notificationUrl');
      return deliver(url, JSON.stringify({ value: built.map(({ item }) => item) }), deliveryTimeout());
    },
    async lifecycle(subscriptionId, event, lifecycleOptions = {}) {
      const subscription = subscriptionOf(subscriptionId);
      if (subscription.lifecycleNotificationUrl === undefined) throw new Error(`subscription ${subscriptionId} has no lifecycleNotificationUrl`);
      if (event === 'subscriptionRemoved') {
        // Graph has already removed it when it says so: a renewal now answers 404.
        subscription.deleted = true;
        subscription.removedBy = 'graph';
      }
      if (event === 'reauthorizationRequired') subscription.reauthorizationRequired = true;
      const item = {
        subscriptionId: subscription.id,
        subscriptionExpirationDateTime: subscription.expirationDateTime,
        tenantId: options.tenantId,
        clientState: lifecycleOptions.clientState ?? subscription.clientState ?? null,
        lifecycleEvent: event,
      };
      return deliver(subscription.lifecycleNotificationUrl, lifecycleOptions.raw ?? JSON.stringify({ value: [item] }), deliveryTimeout());
    },
    requestsOf: (target) => requests.filter((request) => request.target === target),
    async close() {
      for (const server of [loginServer, graphServer]) {
        if (!server) continue;
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      loginServer = graphServer = undefined;
    },
  };
}

/** `Prefer: odata.maxpagesize=50, outlook.timezone="Pacific Standard Time"` */
function parsePrefer(header: string | string[] | undefined): { maxPageSize?: number; timeZone?: string } {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const maxPageSize = Number(/odata\.maxpagesize\s*=\s*(\d+)/i.exec(text)?.[1]);
  const timeZone = /outlook\.timezone\s*=\s*"([^"]+)"/i.exec(text)?.[1];
  return { ...(maxPageSize > 0 ? { maxPageSize } : {}), ...(timeZone ? { timeZone } : {}) };
}

export async function startFakeMicrosoft(options: FakeMicrosoftOptions): Promise<FakeMicrosoft> {
  const fake = createFakeMicrosoft(options);
  await fake.start();
  return fake;
}
