import { Agent } from 'undici';

import { storableText, storableValue } from '../core/storable.ts';
import { classifyGraphResponse, GraphApiError } from './graph-api-error.ts';
import { type DeltaPage, deltaPageSchema } from './graph-event.ts';
import { perKeyLimit } from './per-key-limit.ts';

/** The Graph calls the bridge makes (docs/protocols.md §7), app-only, for one tenant. */
export interface GraphClient {
  createSubscription(request: SubscriptionRequest, signal?: AbortSignal): Promise<{ id: string; expiration: number }>;
  /** PATCH a new expirationDateTime; GraphApiError `not_found` when Graph no longer has it. */
  renewSubscription(userId: string, id: string, expiration: number, signal?: AbortSignal): Promise<{ expiration: number }>;
  deleteSubscription(userId: string, id: string, signal?: AbortSignal): Promise<void>;
  /** One page of calendarView/delta: the first of a window, or the page a next/delta link names. */
  delta(userId: string, from: { window: { start: string; end: string } } | { link: string }, signal?: AbortSignal): Promise<DeltaPage>;
  /** Whether the client would follow this link: a URL on MICROSOFT_GRAPH_API_URL's origin. */
  followsLink(link: string): boolean;
  close(): Promise<void>;
}

export interface SubscriptionRequest {
  userId: string;
  notificationUrl: string;
  lifecycleNotificationUrl: string;
  clientState: string;
  expiration: number;
}

export interface GraphClientOptions {
  /** MICROSOFT_GRAPH_API_URL, e.g. https://graph.microsoft.com/v1.0 */
  baseUrl: string;
  accessToken: () => Promise<string>;
  timeoutMs?: number;
  now?: () => number;
  /** Delta page size asked for with `Prefer: odata.maxpagesize`. */
  pageSize?: number;
}

// Outlook allows four concurrent requests per mailbox and app (docs/protocols.md §7).
const MAILBOX_CONCURRENCY = 4;

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A 2xx that is not JSON is a proxy or an outage page: worth another try later.
    throw new GraphApiError('retryable', `${what}: answer is not JSON`);
  }
}

export function createGraphClient(options: GraphClientOptions): GraphClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const now = options.now ?? Date.now;
  const agent = new Agent({ connect: { timeout: 5_000 }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const base = new URL(options.baseUrl.replace(/\/+$/, '') + '/');
  const perMailbox = perKeyLimit(MAILBOX_CONCURRENCY);

  async function call(
    userId: string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: URL,
    what: string,
    body?: unknown,
    signal?: AbortSignal,
    prefer?: string,
  ) {
    // Links Graph hands back are followed only on Graph's own host: the bridge calls no other.
    if (url.origin !== base.origin)
      throw new GraphApiError('link_refused', `${what}: refusing to follow a link to ${url.origin}, which is not MICROSOFT_GRAPH_API_URL`);
    let token: string;
    try {
      token = await options.accessToken();
    } catch (error) {
      throw new GraphApiError('retryable', `${what}: no access token: ${(error as Error).message}`, { cause: error });
    }
    return perMailbox(userId.toLowerCase(), async () => {
      const timeout = AbortSignal.timeout(timeoutMs);
      let response;
      let text;
      try {
        response = await agent.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(prefer ? { prefer } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        });
        text = await response.body.text();
      } catch (error) {
        throw new GraphApiError('retryable', `${what}: ${timeout.aborted ? 'timed out' : (error as Error).message}`, { cause: error });
      }
      if (response.statusCode >= 200 && response.statusCode < 300) return text;
      throw classifyGraphResponse(response.statusCode, text, response.headers['retry-after'], { what, nowMs: now() });
    });
  }

  const at = (path: string) => new URL(path.replace(/^\//, ''), base);
  const expirationOf = (text: string, what: string): number => {
    const answer = parseJson(text, what) as { id?: unknown; expirationDateTime?: unknown } | null;
    const expiration = typeof answer?.expirationDateTime === 'string' ? Date.parse(answer.expirationDateTime) : NaN;
    if (!Number.isFinite(expiration)) throw new GraphApiError('final', `${what}: answer lacks expirationDateTime`);
    return expiration;
  };

  return {
    async createSubscription(request, signal) {
      const text = await call(
        request.userId,
        'POST',
        at('subscriptions'),
        'create subscription',
        {
          changeType: 'created,updated,deleted',
          notificationUrl: request.notificationUrl,
          lifecycleNotificationUrl: request.lifecycleNotificationUrl,
          // A JSON field, not a URL: the UPN goes in as it is (docs/protocols.md §7).
          resource: `/users/${request.userId}/events`,
          expirationDateTime: new Date(request.expiration).toISOString(),
          clientState: request.clientState,
        },
        signal,
      );
      const id = (parseJson(text, 'create subscription') as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || id === '') throw new GraphApiError('final', 'create subscription: answer lacks id');
      return { id: storableText(id), expiration: expirationOf(text, 'create subscription') };
    },
    async renewSubscription(userId, id, expiration, signal) {
      const text = await call(
        userId,
        'PATCH',
        at(`subscriptions/${encodeURIComponent(id)}`),
        'renew subscription',
        {
          expirationDateTime: new Date(expiration).toISOString(),
        },
        signal,
      );
      return { expiration: expirationOf(text, 'renew subscription') };
    },
    async deleteSubscription(userId, id, signal) {
      await call(userId, 'DELETE', at(`subscriptions/${encodeURIComponent(id)}`), 'delete subscription', undefined, signal);
    },
    async delta(userId, from, signal) {
      let url: URL;
      if ('link' in from) {
        try {
          url = new URL(from.link);
        } catch {
          throw new GraphApiError('sync_state_gone', 'calendarView delta: the stored link is not a URL');
        }
      } else {
        url = at(`users/${encodeURIComponent(userId)}/calendarView/delta`);
        url.searchParams.set('startDateTime', from.window.start);
        url.searchParams.set('endDateTime', from.window.end);
      }
      // Times come back in UTC when asked (docs/protocols.md §7); the page size is a preference, Graph may send fewer.
      const prefer = `outlook.timezone="UTC", odata.maxpagesize=${options.pageSize ?? 50}`;
      const text = await call(userId, 'GET', url, 'calendarView delta', undefined, signal, prefer);
      const parsed = deltaPageSchema.safeParse(parseJson(text, 'calendarView delta'));
      if (!parsed.success) throw new GraphApiError('retryable', 'calendarView delta: unexpected answer shape');
      // Events and links are stored as Graph sent them, made storable on both engines (U+0000 in a subject…).
      return storableValue(parsed.data);
    },
    followsLink(link) {
      return URL.canParse(link) && new URL(link).origin === base.origin;
    },
    close: () => agent.close(),
  };
}
