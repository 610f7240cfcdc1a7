import { createHash, randomUUID, verify } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';

import { restartableServer } from '../support/listen-on-loopback.ts';

/**
 * A fake Google on loopback: the OAuth token endpoint (checks the service account's RS256 JWT
 * assertion against the test key's public half), and the Calendar API calls the bridge makes —
 * events.watch, channels.stop, events.list with pages, sync tokens, 410 and scripted failures.
 * It records every request, and can deliver push notifications to a channel's address.
 */

export interface RecordedGoogleRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The user the bearer token acts as (domain-wide delegation `sub`), when authorised. */
  subject: string | undefined;
}

export interface FakeChannel {
  id: string;
  calendarId: string;
  address: string;
  token: string | undefined;
  resourceId: string;
  expiration: number;
  stopped: boolean;
}

export type FailureTarget = 'token' | 'watch' | 'stop' | 'list';
interface Failure {
  target: FailureTarget;
  status: number;
  headers: Record<string, string>;
  body: unknown;
  skip: number;
}
interface Version {
  seq: number;
  event: Record<string, unknown>;
}

export const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';

export interface FakeGoogle {
  start(): Promise<string>;
  readonly url: string;
  readonly tokenUrl: string;
  readonly calendarApiUrl: string;
  readonly requests: RecordedGoogleRequest[];
  readonly tokensIssued: Array<{ subject: string; scope: string }>;
  readonly channels: Map<string, FakeChannel>;
  /** Adds or changes an event (bumps `updated` unless given); returns the stored event. */
  upsertEvent(calendarId: string, event: Record<string, unknown>): Record<string, unknown>;
  cancelEvent(calendarId: string, eventId: string): void;
  /** Every sync token issued so far for the calendar answers 410 Gone from now on. */
  invalidateSyncTokens(calendarId: string): void;
  /** After `after` more good calls (default 0), the next `times` calls of `target` answer `status`. */
  fail(target: FailureTarget, status: number, options?: { times?: number; after?: number; headers?: Record<string, string>; body?: unknown }): void;
  /** Delivers a push notification to the channel's address as Google does; resolves the status. */
  push(channelId: string, state: 'sync' | 'exists' | 'not_exists', options?: { token?: string; messageNumber?: number }): Promise<number>;
  requestsOf(target: FailureTarget): RecordedGoogleRequest[];
  close(): Promise<void>;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const unb64url = <T>(text: string): T | undefined => {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as T;
  } catch {
    return undefined;
  }
};

export function createFakeGoogle(options: { serviceAccountEmail: string; publicKeyPem: string; pageSize?: number }): FakeGoogle {
  const pageSize = options.pageSize ?? 2;
  const requests: RecordedGoogleRequest[] = [];
  const tokensIssued: Array<{ subject: string; scope: string }> = [];
  const accessTokens = new Map<string, string>();
  const channels = new Map<string, FakeChannel>();
  const calendars = new Map<string, { history: Map<string, Version[]>; seq: number; epoch: number }>();
  const failures: Failure[] = [];

  const calendar = (id: string) => {
    let state = calendars.get(id);
    if (!state) calendars.set(id, (state = { history: new Map(), seq: 0, epoch: 0 }));
    return state;
  };
  const takeFailure = (target: FailureTarget) => {
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
  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const googleError = (status: number, message: string, reason: string) => ({
    error: { code: status, message, errors: [{ domain: 'global', reason, message }] },
  });

  function handleToken(body: string, res: ServerResponse) {
    const form = new URLSearchParams(body);
    const [header, payload, signature] = (form.get('assertion') ?? '').split('.');
    const claims = payload ? unb64url<{ iss?: string; sub?: string; scope?: string; aud?: string; exp?: number }>(payload) : undefined;
    const signed =
      header !== undefined &&
      payload !== undefined &&
      signature !== undefined &&
      verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), options.publicKeyPem, Buffer.from(signature, 'base64url'));
    const valid =
      form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
      signed &&
      claims?.iss === options.serviceAccountEmail &&
      typeof claims.sub === 'string' &&
      (claims.aud === GOOGLE_TOKEN_AUDIENCE || claims.aud === `${loopback.url}/token`) &&
      typeof claims.exp === 'number' &&
      claims.exp * 1000 > Date.now();
    if (!valid) return send(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    const accessToken = `ya29.fake-${randomUUID()}`;
    accessTokens.set(accessToken, claims.sub!);
    tokensIssued.push({ subject: claims.sub!, scope: claims.scope ?? '' });
    send(res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
  }

  function versionsAt(state: { history: Map<string, Version[]> }, snapshot: number) {
    const latest: Version[] = [];
    for (const versions of state.history.values()) {
      const version = versions.filter((item) => item.seq <= snapshot).at(-1);
      if (version) latest.push(version);
    }
    return latest.sort((a, b) => a.seq - b.seq);
  }

  type Cursor = { since?: number; timeMin?: string; timeMax?: string; snapshot: number; offset: number };
  function handleList(calendarId: string, query: Record<string, string>, res: ServerResponse) {
    const state = calendar(calendarId);
    let cursor: Cursor | undefined;
    if (query.pageToken) cursor = unb64url<Cursor>(query.pageToken);
    else if (query.syncToken) {
      const token = unb64url<{ c: string; s: number; e: number }>(query.syncToken);
      if (!token || token.c !== calendarId || token.e !== state.epoch) {
        return send(res, 410, googleError(410, 'Sync token is no longer valid, a full sync is required.', 'fullSyncRequired'));
      }
      cursor = { since: token.s, snapshot: state.seq, offset: 0 };
    } else cursor = { timeMin: query.timeMin, timeMax: query.timeMax, snapshot: state.seq, offset: 0 };
    if (!cursor) return send(res, 400, googleError(400, 'Invalid page token', 'invalid'));
    const since = cursor.since;
    const matching = versionsAt(state, cursor.snapshot).filter((version) => {
      if (since !== undefined) return version.seq > since;
      // A full sync lists live events overlapping [timeMin, timeMax), without deletions.
      const event = version.event as { status?: string; start?: { dateTime?: string; date?: string }; end?: { dateTime?: string; date?: string } };
      const start = Date.parse(event.start?.dateTime ?? event.start?.date ?? '');
      const end = Date.parse(event.end?.dateTime ?? event.end?.date ?? '') || start;
      return event.status !== 'cancelled' && start < Date.parse(cursor.timeMax ?? '') && end > Date.parse(cursor.timeMin ?? '');
    });
    const page = matching.slice(cursor.offset, cursor.offset + pageSize).map((version) => version.event);
    const more = cursor.offset + pageSize < matching.length;
    send(res, 200, {
      kind: 'calendar#events',
      summary: calendarId,
      items: page,
      ...(more
        ? { nextPageToken: b64url({ ...cursor, offset: cursor.offset + pageSize }) }
        : { nextSyncToken: b64url({ c: calendarId, s: cursor.snapshot, e: state.epoch }) }),
    });
  }

  function handleWatch(calendarId: string, body: Record<string, unknown>, res: ServerResponse) {
    const id = String(body.id ?? '');
    if (!id || id.length > 64 || body.type !== 'web_hook' || typeof body.address !== 'string' || channels.has(id)) {
      return send(res, 400, googleError(400, 'Invalid channel', 'invalid'));
    }
    const ttlSeconds = Number((body.params as { ttl?: string } | undefined)?.ttl ?? 604_800);
    const resourceId = `res-${createHash('sha256').update(calendarId).digest('hex').slice(0, 16)}`;
    const channel: FakeChannel = {
      id,
      calendarId,
      address: body.address,
      token: body.token as string | undefined,
      resourceId,
      expiration: Date.now() + ttlSeconds * 1000,
      stopped: false,
    };
    channels.set(id, channel);
    send(res, 200, {
      kind: 'api#channel',
      id,
      resourceId,
      resourceUri: `${loopback.url}/calendar/v3/calendars/${encodeURIComponent(calendarId)}/events?alt=json`,
      token: channel.token,
      expiration: String(channel.expiration),
    });
  }

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const parsed = new URL(req.url ?? '/', 'http://fake.invalid');
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const subject = bearer === undefined ? undefined : accessTokens.get(bearer);
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // form bodies (the token endpoint) stay text
    }
    requests.push({ method: req.method ?? '', path: parsed.pathname, query: Object.fromEntries(parsed.searchParams), body, subject });

    const target: FailureTarget | undefined =
      parsed.pathname === '/token'
        ? 'token'
        : parsed.pathname.endsWith('/events/watch')
          ? 'watch'
          : parsed.pathname.endsWith('/channels/stop')
            ? 'stop'
            : parsed.pathname.endsWith('/events')
              ? 'list'
              : undefined;
    if (target === undefined) return send(res, 404, googleError(404, 'Not Found', 'notFound'));
    const failure = takeFailure(target);
    if (failure)
      return send(
        res,
        failure.status,
        failure.body ?? googleError(failure.status, 'scripted failure', failure.status === 429 ? 'rateLimitExceeded' : 'backendError'),
        failure.headers,
      );
    if (target === 'token') return handleToken(raw, res);
    if (subject === undefined) return send(res, 401, googleError(401, 'Invalid Credentials', 'authError'));
    if (target === 'stop') {
      const channel = channels.get(String((body as { id?: unknown })?.id));
      if (!channel || channel.resourceId !== (body as { resourceId?: unknown }).resourceId)
        return send(res, 404, googleError(404, 'Channel not found', 'notFound'));
      channel.stopped = true;
      res.writeHead(204).end();
      return;
    }
    const calendarId = decodeURIComponent(/\/calendars\/([^/]+)\//.exec(parsed.pathname)?.[1] ?? '');
    // Domain-wide delegation: the token must act as the calendar's owner.
    if (subject !== calendarId) return send(res, 403, googleError(403, 'Forbidden', 'forbidden'));
    if (target === 'watch') return handleWatch(calendarId, (body ?? {}) as Record<string, unknown>, res);
    handleList(calendarId, Object.fromEntries(parsed.searchParams), res);
  };

  const loopback = restartableServer((req, res) => void onRequest(req, res));
  return {
    start: () => loopback.start(),
    get url() {
      return loopback.url;
    },
    get tokenUrl() {
      return `${loopback.url}/token`;
    },
    get calendarApiUrl() {
      return `${loopback.url}/calendar/v3`;
    },
    requests,
    tokensIssued,
    channels,
    upsertEvent(calendarId, event) {
      const state = calendar(calendarId);
      state.seq += 1;
      // Google's `updated` has millisecond precision; the sequence keeps two quick edits apart.
      const stored: Record<string, unknown> = {
        kind: 'calendar#event',
        status: 'confirmed',
        ...event,
        updated: event.updated ?? new Date(Date.now() + state.seq).toISOString(),
      };
      const id = String(stored.id);
      state.history.set(id, [...(state.history.get(id) ?? []), { seq: state.seq, event: stored }]);
      return stored;
    },
    cancelEvent(calendarId, eventId) {
      const state = calendar(calendarId);
      state.seq += 1;
      const stored = { kind: 'calendar#event', id: eventId, status: 'cancelled', updated: new Date(Date.now() + state.seq).toISOString() };
      state.history.set(eventId, [...(state.history.get(eventId) ?? []), { seq: state.seq, event: stored }]);
    },
    invalidateSyncTokens(calendarId) {
      calendar(calendarId).epoch += 1;
    },
    fail(target, status, failOptions = {}) {
      for (let i = 0; i < (failOptions.times ?? 1); i += 1) {
        failures.push({ target, status, headers: failOptions.headers ?? {}, body: failOptions.body, skip: i === 0 ? (failOptions.after ?? 0) : 0 });
      }
    },
    async push(channelId, state, pushOptions = {}) {
      const channel = channels.get(channelId);
      if (!channel) throw new Error(`fake Google has no channel ${channelId}`);
      const token = pushOptions.token ?? channel.token;
      const response = await fetch(channel.address, {
        method: 'POST',
        headers: {
          'x-goog-channel-id': channel.id,
          'x-goog-message-number': String(pushOptions.messageNumber ?? 1),
          'x-goog-resource-id': channel.resourceId,
          'x-goog-resource-state': state,
          'x-goog-resource-uri': `${loopback.url}/calendar/v3/calendars/${encodeURIComponent(channel.calendarId)}/events?alt=json`,
          'x-goog-channel-expiration': new Date(channel.expiration).toUTCString(),
          ...(token === undefined ? {} : { 'x-goog-channel-token': token }),
        },
      });
      await response.arrayBuffer();
      return response.status;
    },
    requestsOf: (target) =>
      requests.filter((request) =>
        target === 'token'
          ? request.path === '/token'
          : target === 'watch'
            ? request.path.endsWith('/events/watch')
            : target === 'stop'
              ? request.path.endsWith('/channels/stop')
              : request.path.endsWith('/events'),
      ),
    close: () => loopback.close(),
  };
}

export async function startFakeGoogle(options: Parameters<typeof createFakeGoogle>[0]): Promise<FakeGoogle> {
  const fake = createFakeGoogle(options);
  await fake.start();
  return fake;
}
