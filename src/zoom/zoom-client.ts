import { Agent } from 'undici';
import { z } from 'zod';

import { LookupError } from '../mapping/event-mapper.ts';

export interface ZoomParticipant {
  email?: string;
  name?: string;
}

/** Zoom's API as the bridge uses it: a meeting's participants, with the S2S OAuth token it needs. */
export interface ZoomClient {
  /** The participants of a past meeting; undefined when Zoom has none for it (404: an unknown or too old meeting). */
  participants(uuid: string, signal?: AbortSignal): Promise<ZoomParticipant[] | undefined>;
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
  participants: z.array(z.looseObject({ name: z.string().optional(), user_email: z.string().optional() })).default([]),
});

// A token is used until a minute before Zoom says it expires, so no call carries one that lapses in flight.
const TOKEN_MARGIN_MS = 60_000;
const MAX_PAGES = 50;

/**
 * A uuid that begins with `/` or holds `//` must be URL-encoded twice in a path (docs/protocols.md §8);
 * any other once.
 */
export function encodeMeetingUuid(uuid: string): string {
  const once = encodeURIComponent(uuid);
  return uuid.startsWith('/') || uuid.includes('//') ? encodeURIComponent(once) : once;
}

/** Zoom lookups that fail for a passing reason retry the mapping job; the error class names Zoom in the attempt log. */
const zoomError = (message: string, cause?: unknown) => new LookupError(message, { errorClass: 'zoom_lookup', ...(cause === undefined ? {} : { cause }) });

export function createZoomClient(options: ZoomClientOptions): ZoomClient {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const now = options.now ?? Date.now;
  const agent = new Agent({ connect: { timeout: 5_000 }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  let cached: { token: string; until: number } | undefined;

  async function send(url: URL, init: { method: 'GET' | 'POST'; headers: Record<string, string> }, signal?: AbortSignal) {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        ...init,
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      return { status: response.statusCode, text: await response.body.text() };
    } catch (error) {
      throw zoomError(`Zoom ${url.pathname}: ${timeout.aborted ? 'timed out' : (error as Error).message}`, error);
    }
  }

  /** Server-to-Server OAuth: account_credentials with HTTP Basic client id and secret, cached until it expires. */
  async function token(signal?: AbortSignal): Promise<string> {
    if (cached !== undefined && cached.until > now()) return cached.token;
    const url = new URL(options.oauthUrl);
    url.searchParams.set('grant_type', 'account_credentials');
    url.searchParams.set('account_id', options.accountId);
    const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64');
    const answer = await send(url, { method: 'POST', headers: { authorization: `Basic ${basic}`, accept: 'application/json' } }, signal);
    const parsed = answer.status === 200 ? tokenSchema.safeParse(safeJson(answer.text)) : undefined;
    if (!parsed?.success) throw zoomError(`Zoom OAuth: HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
    cached = { token: parsed.data.access_token, until: now() + parsed.data.expires_in * 1000 - TOKEN_MARGIN_MS };
    return cached.token;
  }

  return {
    async participants(uuid, signal) {
      const found: ZoomParticipant[] = [];
      let pageToken = '';
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const url = new URL(`${options.apiUrl.replace(/\/+$/, '')}/past_meetings/${encodeMeetingUuid(uuid)}/participants`);
        url.searchParams.set('page_size', '300');
        if (pageToken) url.searchParams.set('next_page_token', pageToken);
        const answer = await send(url, { method: 'GET', headers: { authorization: `Bearer ${await token(signal)}`, accept: 'application/json' } }, signal);
        if (answer.status === 401) cached = undefined; // revoked or expired early: the retry gets a new one
        // Zoom keeps no participants for an unknown or too old meeting: import without attendees.
        if (answer.status === 404 || (answer.status === 400 && /"code":\s*(3001|12702)/.test(answer.text))) return undefined;
        if (answer.status !== 200) throw zoomError(`Zoom participants: HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
        const parsed = pageSchema.safeParse(safeJson(answer.text));
        if (!parsed.success) throw zoomError('Zoom participants: unexpected answer shape');
        for (const participant of parsed.data.participants) {
          found.push({ ...(participant.user_email ? { email: participant.user_email } : {}), ...(participant.name ? { name: participant.name } : {}) });
        }
        pageToken = parsed.data.next_page_token ?? '';
        if (pageToken === '') break;
      }
      return found;
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
