import { randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';
import { createCalendarStore, type Mailbox } from './fake-microsoft-calendar.ts';
import { createFakeGraph, type DeltaScript } from './fake-microsoft-graph.ts';
import { aadError, checkTokenRequest, knowsTenant, type LoginConfig, openIdConfiguration, tenantNotFound } from './fake-microsoft-login.ts';
import type {
  ChangeType,
  Failure,
  FakeMicrosoft,
  FakeMicrosoftOptions,
  FakeSubscription,
  IssuedToken,
  MicrosoftFailureTarget,
  RecordedMicrosoftRequest,
  Send,
} from './fake-microsoft-types.ts';
import { deliver, type ValidationAttempt } from './fake-microsoft-webhooks.ts';
import { TEST_CERT_FILE, TEST_KEY_FILE } from './trust-test-ca.ts';

export type * from './fake-microsoft-types.ts';

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

/** Graph's own content type for JSON answers; a client must not expect exactly `application/json`. */
const GRAPH_JSON = 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8';

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
  const deltaScripts = new Map<Mailbox, DeltaScript>();
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

  const { handleGraph } = createFakeGraph({
    options,
    store,
    tokensIssued,
    subscriptions,
    validations,
    concurrency,
    deltaScripts,
    servicePrincipalId: randomUUID(),
    graphUrl: () => graphUrl,
    takeFailure,
    sendFailure,
  });

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

export async function startFakeMicrosoft(options: FakeMicrosoftOptions): Promise<FakeMicrosoft> {
  const fake = createFakeMicrosoft(options);
  await fake.start();
  return fake;
}
