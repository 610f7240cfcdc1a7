import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import type { createCalendarStore, Mailbox } from './fake-microsoft-calendar.ts';
import { graphInstant, parseClientInstant } from './fake-microsoft-time.ts';
import type {
  Failure,
  FakeMicrosoftOptions,
  FakeSubscription,
  IssuedToken,
  MicrosoftFailureTarget,
  RecordedMicrosoftRequest,
  RequestIds,
  Send,
} from './fake-microsoft-types.ts';
import { validateEndpoint, type ValidationAttempt, validationTokenFor } from './fake-microsoft-webhooks.ts';

/** The resources whose tokens Graph accepts: its URI and its application id. */
const GRAPH_SCOPES = ['https://graph.microsoft.com/.default', '00000003-0000-0000-c000-000000000000/.default'];
const MAX_EXPIRATION_MINUTES = 10_080;
const MIN_EXPIRATION_MINUTES = 45;

/** A delta answer a test scripts for a mailbox (FakeMicrosoft.scriptDelta). */
export type DeltaScript = (query: Record<string, string>, deltaUrl: string) => object | undefined;

/** What the Graph server shares with the rest of the fake. */
export interface FakeGraphState {
  options: FakeMicrosoftOptions;
  store: ReturnType<typeof createCalendarStore>;
  tokensIssued: IssuedToken[];
  subscriptions: Map<string, FakeSubscription>;
  validations: ValidationAttempt[];
  concurrency: Map<Mailbox, { inFlight: number; max: number }>;
  deltaScripts: Map<Mailbox, DeltaScript>;
  /** The service principal of the app in the tenant: Graph reports it as a subscription's creatorId. */
  servicePrincipalId: string;
  /** `http://127.0.0.1:<port>/v1.0`, once listening. */
  graphUrl: () => string;
  takeFailure: (target: MicrosoftFailureTarget) => Failure | undefined;
  sendFailure: (send: Send, failure: Failure, defaultBody: unknown) => void;
}

/**
 * Microsoft Graph as the fake serves it: subscriptions (create with Graph's endpoint validation,
 * renew, reauthorize, delete, list), calendarView delta rounds and single events, behind Graph's
 * token check, per-mailbox concurrency and scripted failures.
 */
export function createFakeGraph(state: FakeGraphState) {
  const { options, store, tokensIssued, subscriptions, validations, concurrency, deltaScripts, servicePrincipalId, takeFailure, sendFailure } = state;
  const graphUrl = () => state.graphUrl();

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
    '@odata.context': `${graphUrl()}/$metadata#subscriptions/$entity`,
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
            '@odata.context': `${graphUrl()}/$metadata#subscriptions`,
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
          return send(200, { '@odata.context': `${graphUrl()}/$metadata#users('${mailbox.address}')/events/$entity`, ...event });
        }
        const selfUrl = `${graphUrl()}/users/${segments[0]}/calendarView/delta`;
        const scripted = deltaScripts.get(mailbox)?.(Object.fromEntries(url.searchParams), selfUrl);
        if (scripted !== undefined) return send(200, { '@odata.context': `${graphUrl()}/$metadata#Collection(event)`, ...scripted });
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

  return { handleGraph };
}

/** `Prefer: odata.maxpagesize=50, outlook.timezone="Pacific Standard Time"` */
function parsePrefer(header: string | string[] | undefined): { maxPageSize?: number; timeZone?: string } {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const maxPageSize = Number(/odata\.maxpagesize\s*=\s*(\d+)/i.exec(text)?.[1]);
  const timeZone = /outlook\.timezone\s*=\s*"([^"]+)"/i.exec(text)?.[1];
  return { ...(maxPageSize > 0 ? { maxPageSize } : {}), ...(timeZone ? { timeZone } : {}) };
}
