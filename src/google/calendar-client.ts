import { Agent } from 'undici';

import { storableText, storableValue } from '../core/storable.ts';
import { classifyGoogleResponse, GoogleApiError } from './google-api-error.ts';
import { type EventsPage, eventsPageSchema } from './google-event.ts';
import type { GoogleAuth } from './service-account.ts';

/** The Calendar API calls the bridge makes (docs/protocols.md §3), each acting as the calendar's owner. */
export interface CalendarClient {
  watch(calendarId: string, request: WatchRequest, signal?: AbortSignal): Promise<WatchResponse>;
  stop(calendarId: string, channel: { id: string; resourceId: string }, signal?: AbortSignal): Promise<void>;
  listEvents(calendarId: string, query: ListQuery, signal?: AbortSignal): Promise<EventsPage>;
  close(): Promise<void>;
}

export interface WatchRequest {
  id: string;
  address: string;
  token: string;
  ttlSeconds: number;
}

export interface WatchResponse {
  resourceId: string;
  expiration: number;
}

export type ListQuery = { pageToken?: string; maxResults?: number } & ({ syncToken: string } | { timeMin: string; timeMax: string });

export interface CalendarClientOptions {
  /** GOOGLE_CALENDAR_API_URL, e.g. https://www.googleapis.com/calendar/v3 */
  baseUrl: string;
  auth: GoogleAuth;
  timeoutMs?: number;
  now?: () => number;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A 2xx that is not JSON is a proxy or an outage page: worth another try later.
    throw new GoogleApiError('retryable', `${what}: answer is not JSON`);
  }
}

export function createCalendarClient(options: CalendarClientOptions): CalendarClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const now = options.now ?? Date.now;
  const agent = new Agent({ connect: { timeout: 5_000 }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const base = options.baseUrl.replace(/\/+$/, '');

  async function bearer(subject: string, what: string): Promise<string> {
    try {
      return await options.auth.accessToken(subject);
    } catch (error) {
      // The token endpoint: 5xx/429/network are passing; 400/401 (unauthorized_client, invalid_grant) are setup errors.
      const status = (error as { response?: { status?: unknown }; status?: unknown }).response?.status ?? (error as { status?: unknown }).status;
      const retry = typeof status !== 'number' || status === 429 || status >= 500;
      throw new GoogleApiError(retry ? 'retryable' : 'final', `${what}: no access token for ${subject}: ${(error as Error).message}`, {
        status: typeof status === 'number' ? status : undefined,
        cause: error,
      });
    }
  }

  async function call(subject: string, method: 'GET' | 'POST', path: string, what: string, body?: unknown, signal?: AbortSignal, incremental = false) {
    const token = await bearer(subject, what);
    const url = new URL(base + path);
    const timeout = AbortSignal.timeout(timeoutMs);
    let response;
    let text;
    try {
      response = await agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      text = await response.body.text();
    } catch (error) {
      throw new GoogleApiError('retryable', `${what}: ${timeout.aborted ? 'timed out' : (error as Error).message}`, { cause: error });
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return text;
    const retryAfter = response.headers['retry-after'];
    throw classifyGoogleResponse(response.statusCode, text, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, { what, incremental, nowMs: now() });
  }

  const calendarPath = (calendarId: string) => `/calendars/${encodeURIComponent(calendarId)}`;

  return {
    async watch(calendarId, request, signal) {
      const text = await call(
        calendarId,
        'POST',
        `${calendarPath(calendarId)}/events/watch`,
        'events.watch',
        {
          id: request.id,
          type: 'web_hook',
          address: request.address,
          token: request.token,
          params: { ttl: String(request.ttlSeconds) },
        },
        signal,
      );
      const answer = parseJson(text, 'events.watch') as { resourceId?: unknown; expiration?: unknown } | null;
      // expiration is epoch milliseconds, sent as a string.
      const expiration = Number(answer?.expiration);
      if (typeof answer?.resourceId !== 'string' || !Number.isFinite(expiration)) {
        throw new GoogleApiError('final', 'events.watch: answer lacks resourceId or expiration');
      }
      return { resourceId: storableText(answer.resourceId), expiration };
    },
    async stop(calendarId, channel, signal) {
      await call(calendarId, 'POST', '/channels/stop', 'channels.stop', { id: channel.id, resourceId: channel.resourceId }, signal);
    },
    async listEvents(calendarId, query, signal) {
      const params = new URLSearchParams({ singleEvents: 'true', maxResults: String(query.maxResults ?? 250) });
      if ('syncToken' in query) params.set('syncToken', query.syncToken);
      else {
        params.set('timeMin', query.timeMin);
        params.set('timeMax', query.timeMax);
      }
      if (query.pageToken !== undefined) params.set('pageToken', query.pageToken);
      const text = await call(calendarId, 'GET', `${calendarPath(calendarId)}/events?${params}`, 'events.list', undefined, signal, 'syncToken' in query);
      const parsed = eventsPageSchema.safeParse(parseJson(text, 'events.list'));
      if (!parsed.success) throw new GoogleApiError('retryable', 'events.list: unexpected answer shape');
      // Event text may carry U+0000 or unpaired surrogates (docs/protocols.md §3): made storable
      // here, before the page is stored or mapped.
      return storableValue(parsed.data);
    },
    close: () => agent.close(),
  };
}
