import { Agent } from 'undici';
import { z } from 'zod';

import { storableText } from '../core/storable.ts';
import { parseRetryAfter } from '../jobs/retry-policy.ts';
import { LookupError } from '../mapping/event-mapper.ts';

/** One entry of Zoom's participant list (one per join), its text made storable on both engines. */
export interface ZoomParticipant {
  email?: string;
  name?: string;
}

export interface ZoomParticipantList {
  /** In Zoom's order, as many as the pages read hold. */
  participants: ZoomParticipant[];
  /** Whether Zoom had pages left when the bridge stopped reading (MAX_PAGES): the list is then cut short. */
  more: boolean;
}

/** Zoom's API as the bridge uses it: a meeting's participants, with the S2S OAuth token it needs. */
export interface ZoomClient {
  /** The participants of a past meeting; undefined when Zoom has none for it (404: an unknown or too old meeting). */
  participants(uuid: string, signal?: AbortSignal): Promise<ZoomParticipantList | undefined>;
  close(): Promise<void>;
}

export interface ZoomClientOptions {
  /** ZOOM_API_URL, e.g. https://api.zoom.us/v2 */
  apiUrl: string;
  /** ZOOM_OAUTH_URL, e.g. https://zoom.us/oauth/token */
  oauthUrl: string;
  accountId: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
  now?: () => number;
}

const tokenSchema = z.looseObject({ access_token: z.string().min(1), expires_in: z.number().positive() });
const pageSchema = z.looseObject({
  next_page_token: z.string().optional(),
  // A guest's name or email can be empty or null: either is "none", never an unreadable answer.
  participants: z.array(z.looseObject({ name: z.string().nullish(), user_email: z.string().nullish() })).default([]),
});

// A token is used until a minute before Zoom says it expires, so no call carries one that lapses in flight.
const TOKEN_MARGIN_MS = 60_000;
/** Pages of participants read at most: 50 of Zoom's largest (300) is 15 000 joins, far past what an import carries. */
const MAX_PAGES = 50;

/**
 * A meeting uuid as one path segment (docs/protocols.md §8): one that begins with `/` or holds `//`
 * is URL-encoded twice, any other once; and one that is `.` or `..` is written `%2E` or `%2E%2E`,
 * which encodeURIComponent leaves alone, so that no URL normalisation takes it for a dot segment
 * and drops it (`/past_meetings/../participants` would name `/participants`).
 */
export function encodeMeetingUuid(uuid: string): string {
  if (uuid === '.' || uuid === '..') return uuid.replaceAll('.', '%2E');
  const once = encodeURIComponent(uuid);
  return uuid.startsWith('/') || uuid.includes('//') ? encodeURIComponent(once) : once;
}

/** Zoom lookups that fail for a passing reason retry the mapping job; the error class names Zoom in the attempt log. */
const zoomError = (message: string, cause?: unknown, retryAfterMs?: number) =>
  new LookupError(message, { errorClass: 'zoom_lookup', ...(cause === undefined ? {} : { cause }), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

/** Zoom's answer quoted in an error, which is stored with the attempt: short, and storable on both engines. */
const excerpt = (text: string) => storableText(text.slice(0, 200));

/** A participant's name and email as both engines store them (Zoom's text can hold U+0000 or half a surrogate pair). */
function participantOf(entry: { name?: string | null | undefined; user_email?: string | null | undefined }): ZoomParticipant {
  const email = storableText(entry.user_email ?? '');
  const name = storableText(entry.name ?? '');
  return { ...(email ? { email } : {}), ...(name ? { name } : {}) };
}

export function createZoomClient(options: ZoomClientOptions): ZoomClient {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const now = options.now ?? Date.now;
  const agent = new Agent({ connect: { timeout: 5_000 }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  let cached: { token: string; until: number } | undefined;
  // One token request at a time: Zoom invalidates a Server-to-Server token when it issues the next
  // (docs/protocols.md §8), so jobs fetching their own would revoke each other's.
  let fetching: Promise<{ token: string; until: number }> | undefined;

  // The API's origin and base path, so a request path is written as is, never normalised by a URL parser.
  const api = new URL(options.apiUrl);
  const apiBase = api.pathname.replace(/\/+$/, '');

  /** `path` is sent exactly as given (already encoded), query included. */
  async function send(target: { origin: string; path: string }, init: { method: 'GET' | 'POST'; headers: Record<string, string> }, signal?: AbortSignal) {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await agent.request({
        origin: target.origin,
        path: target.path,
        ...init,
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      return { status: response.statusCode, text: await response.body.text(), retryAfter: response.headers['retry-after'] };
    } catch (error) {
      const path = target.path.split('?')[0] ?? '';
      throw zoomError(`Zoom ${path}: ${timeout.aborted ? 'timed out' : storableText((error as Error).message)}`, error);
    }
  }

  /** Server-to-Server OAuth: account_credentials with HTTP Basic client id and secret, cached until it expires and shared by every caller. */
  async function token(): Promise<string> {
    if (cached !== undefined && cached.until > now()) return cached.token;
    // Not tied to one caller's signal: the request serves every caller waiting on it (the timeout bounds it).
    fetching ??= fetchToken().finally(() => (fetching = undefined));
    return (await fetching).token;
  }

  async function fetchToken(): Promise<{ token: string; until: number }> {
    const url = new URL(options.oauthUrl);
    url.searchParams.set('grant_type', 'account_credentials');
    url.searchParams.set('account_id', options.accountId);
    const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64');
    const answer = await send(
      { origin: url.origin, path: url.pathname + url.search },
      { method: 'POST', headers: { authorization: `Basic ${basic}`, accept: 'application/json' } },
    );
    const parsed = answer.status === 200 ? tokenSchema.safeParse(safeJson(answer.text)) : undefined;
    if (!parsed?.success) throw zoomError(`Zoom OAuth: HTTP ${answer.status}: ${excerpt(answer.text)}`);
    cached = { token: parsed.data.access_token, until: now() + parsed.data.expires_in * 1000 - TOKEN_MARGIN_MS };
    return cached;
  }

  return {
    async participants(uuid, signal) {
      const found: ZoomParticipant[] = [];
      const path = `${apiBase}/past_meetings/${encodeMeetingUuid(uuid)}/participants`;
      let pageToken = '';
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const query = new URLSearchParams({ page_size: '300', ...(pageToken ? { next_page_token: pageToken } : {}) });
        const used = await token();
        const answer = await send(
          { origin: api.origin, path: `${path}?${query.toString()}` },
          { method: 'GET', headers: { authorization: `Bearer ${used}`, accept: 'application/json' } },
          signal,
        );
        // Revoked or expired early: the retry gets a new one; a newer token another caller fetched meanwhile is kept.
        if (answer.status === 401 && cached?.token === used) cached = undefined;
        // Zoom keeps no participants for an unknown or too old meeting: import without attendees.
        if (answer.status === 404 || (answer.status === 400 && /"code":\s*(3001|12702)/.test(answer.text))) return undefined;
        // A 429 names when to come back (docs/protocols.md §8); the mapping job waits at least that long.
        const retryAfterMs = answer.status === 429 ? parseRetryAfter(answer.retryAfter, now()) : undefined;
        if (answer.status !== 200) throw zoomError(`Zoom participants: HTTP ${answer.status}: ${excerpt(answer.text)}`, undefined, retryAfterMs);
        const parsed = pageSchema.safeParse(safeJson(answer.text));
        if (!parsed.success) throw zoomError('Zoom participants: unexpected answer shape');
        for (const participant of parsed.data.participants) found.push(participantOf(participant));
        pageToken = parsed.data.next_page_token ?? '';
        if (pageToken === '') return { participants: found, more: false };
      }
      return { participants: found, more: true };
    },
    close: () => agent.close(),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
