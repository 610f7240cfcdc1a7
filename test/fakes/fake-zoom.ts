import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';

/**
 * A fake Zoom on loopback, one server for the bridge's recording imports (docs/protocols.md §8):
 * - Server-to-Server OAuth: `POST /oauth/token?grant_type=account_credentials&account_id=…` with
 *   HTTP Basic client credentials, issuing bearer tokens that expire;
 * - the API under `/v2`: `GET /v2/past_meetings/{uuid}/participants`, paged with
 *   `next_page_token`, holding Zoom's rule that a uuid beginning with `/` or holding `//` is
 *   URL-encoded twice (and every other uuid once), with scripted failures.
 * It records every request with its path exactly as received. Zoom's webhook sender (signed
 * events, URL validation, `recording.completed`) is in `fake-zoom-webhooks.ts`, re-exported here.
 */

export {
  expectedEncryptedToken,
  otherEvent,
  recordingCompletedEvent,
  sendEvent,
  type SendEventOptions,
  signZoomRequest,
  urlValidationEvent,
  ZOOM_SAMPLE_ACCOUNT_ID,
  ZOOM_UUIDS,
  type ZoomDelivery,
  type ZoomRecordingCompletedEvent,
  type ZoomRecordingFile,
  type ZoomRecordingObject,
  type ZoomUrlValidationEvent,
} from './fake-zoom-webhooks.ts';

export type ZoomFailureTarget = 'token' | 'participants';

export interface FakeZoomOptions {
  accountId: string;
  clientId: string;
  clientSecret: string;
  /** The most participants one page holds, whatever `page_size` asks (default 2, so paging is exercised). */
  pageSize?: number;
  /** Lifetime of issued access tokens in seconds (default 3600, as Zoom); 0 issues tokens already expired. */
  tokenExpiresIn?: number;
  /** Scopes the app was granted (default `DEFAULT_ZOOM_SCOPES`); without the participants scope that call answers 400 code 4711. */
  scopes?: string[];
}

export interface ZoomParticipant {
  id: string;
  name: string;
  /** Empty for a guest who joined without signing in. */
  user_email: string;
  join_time: string;
  leave_time: string;
  /** Seconds. */
  duration: number;
  registrant_id?: string;
  status: 'in_meeting' | 'in_waiting_room';
}

export type ZoomParticipantInput = Partial<ZoomParticipant> & { name: string };

export interface RecordedZoomRequest {
  target: ZoomFailureTarget | undefined;
  method: string;
  /** The path exactly as received, percent-encoding untouched (`/v2/past_meetings/%252Fabc%253D%253D/participants`). */
  rawPath: string;
  query: Record<string, string>;
  headers: { authorization?: string; 'content-type'?: string; 'user-agent'?: string };
  /** Form bodies as an object of fields, others as text; undefined when empty. */
  body: unknown;
  /** The meeting uuid the path named once decoded by Zoom's rule, when it named a meeting the fake knows. */
  meetingUuid: string | undefined;
  /** The status the fake answered, once it has. */
  status: number | undefined;
  at: number;
}

export interface IssuedZoomToken {
  accessToken: string;
  accountId: string;
  clientId: string;
  scope: string;
  expiresAt: number;
}

export interface FakeZoom {
  start(): Promise<{ oauthUrl: string; apiUrl: string }>;
  /** `http://127.0.0.1:<port>`: what the token answer's `api_url` holds, as Zoom's holds `https://api.zoom.us`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>/oauth/token` */
  readonly oauthUrl: string;
  /** `http://127.0.0.1:<port>/v2` */
  readonly apiUrl: string;
  readonly requests: RecordedZoomRequest[];
  readonly tokensIssued: IssuedZoomToken[];
  /** Makes the meeting known (again) with these participants, defaults filled; returns them as stored. */
  setParticipants(uuid: string, participants: ZoomParticipantInput[]): ZoomParticipant[];
  /** The meeting answers 404 code 3001 from now on, or with `yearOld` 400 code 12702 (Zoom keeps a year of past meetings). */
  forgetMeeting(uuid: string, options?: { yearOld?: boolean }): void;
  /** Every access token issued so far is refused from now on (401 code 124), as when it expires. */
  expireTokens(): void;
  /**
   * After `after` more good calls (default 0), the next `times` calls of `target` answer `status`
   * with `body` (default: Zoom's error shape) and `headers` (default for 429: `Retry-After: 1`).
   */
  fail(target: ZoomFailureTarget, status: number, options?: { times?: number; after?: number; headers?: Record<string, string>; body?: unknown }): void;
  requestsOf(target: ZoomFailureTarget): RecordedZoomRequest[];
  close(): Promise<void>;
}

export const PARTICIPANTS_SCOPE = 'meeting:read:list_past_participants:admin';
export const DEFAULT_ZOOM_SCOPES = [PARTICIPANTS_SCOPE, 'cloud_recording:read:list_recording_files:admin', 'meeting:read:meeting:admin'];

interface Failure {
  target: ZoomFailureTarget;
  status: number;
  headers: Record<string, string> | undefined;
  body: unknown;
  skip: number;
}
type Meeting = { participants: ZoomParticipant[]; state: 'known' | 'forgotten' | 'year-old' };
type Send = (status: number, body?: unknown, headers?: Record<string, string>) => void;

/** Zoom's rule: a uuid that begins with `/` or holds `//` must be URL-encoded twice in a path. */
const needsDoubleEncoding = (uuid: string) => uuid.startsWith('/') || uuid.includes('//');
const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function createFakeZoom(options: FakeZoomOptions): FakeZoom {
  const maxPageSize = options.pageSize ?? 2;
  const scopes = options.scopes ?? DEFAULT_ZOOM_SCOPES;
  const requests: RecordedZoomRequest[] = [];
  const tokensIssued: IssuedZoomToken[] = [];
  const meetings = new Map<string, Meeting>();
  const pageTokens = new Map<string, { uuid: string; offset: number }>();
  const failures: Failure[] = [];
  let server: Server | undefined;
  let url = '';

  const takeFailure = (target: ZoomFailureTarget) => {
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
  const sendFailure = (send: Send, failure: Failure) => {
    const headers = failure.headers ?? (failure.status === 429 ? { 'retry-after': '1' } : {});
    const defaultBody =
      failure.target === 'token'
        ? { reason: 'Scripted failure of the fake Zoom.', error: failure.status === 429 ? 'too_many_requests' : 'server_error' }
        : failure.status === 429
          ? { code: 429, message: 'You have reached the maximum per-second rate limit for this API. Try again later.' }
          : { code: failure.status, message: 'Scripted failure of the fake Zoom.' };
    send(failure.status, failure.body ?? defaultBody, headers);
  };

  function handleToken(req: IncomingMessage, query: URLSearchParams, body: unknown, send: Send) {
    // Zoom documents the parameters in the query; a form body is read too, as OAuth clients send it.
    const form = typeof body === 'object' && body !== null ? (body as Record<string, string>) : {};
    const grantType = query.get('grant_type') ?? form.grant_type;
    const accountId = query.get('account_id') ?? form.account_id;
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const credentials = basic === undefined ? '' : Buffer.from(basic, 'base64').toString('utf8');
    const colon = credentials.indexOf(':');
    const clientId = colon < 0 ? '' : credentials.slice(0, colon);
    if (colon < 0 || clientId !== options.clientId || credentials.slice(colon + 1) !== options.clientSecret)
      return send(401, { reason: 'Invalid client_id or client_secret', error: 'invalid_client' });
    if (grantType !== 'account_credentials') return send(400, { reason: 'unsupported grant type', error: 'unsupported_grant_type' });
    if (accountId !== options.accountId) return send(400, { reason: 'Invalid account_id', error: 'invalid_request' });
    const expiresIn = options.tokenExpiresIn ?? 3600;
    const token: IssuedZoomToken = {
      // Zoom's access tokens are JWTs; the fake's are opaque text in the same outward form.
      accessToken: `eyJzdiI6IjAwMDAwMiIsImFsZyI6IkhTNTEyIiwidiI6IjIuMCJ9.${randomBytes(48).toString('base64url')}`,
      accountId,
      clientId,
      scope: scopes.join(' '),
      expiresAt: Date.now() + expiresIn * 1000,
    };
    tokensIssued.push(token);
    send(200, { access_token: token.accessToken, token_type: 'bearer', expires_in: expiresIn, scope: token.scope, api_url: url });
  }

  /** The uuid a raw path segment names: encoded once normally, twice when Zoom's rule asks for it; anything else names nothing. */
  function resolveUuid(segment: string): string | undefined {
    const once = decode(segment);
    if (once === undefined) return undefined;
    if (!needsDoubleEncoding(once) && meetings.has(once)) return once;
    // Encoded twice, the slashes are still encoded after Zoom's own decoding of the path.
    const twice = once.includes('/') ? undefined : decode(once);
    return twice !== undefined && needsDoubleEncoding(twice) && meetings.has(twice) ? twice : undefined;
  }

  function handleParticipants(req: IncomingMessage, segment: string, query: URLSearchParams, record: RecordedZoomRequest, send: Send) {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const issued = tokensIssued.find((token) => token.accessToken === bearer);
    if (!issued) return send(401, { code: 124, message: 'Invalid access token.' });
    if (issued.expiresAt <= Date.now()) return send(401, { code: 124, message: 'Access token is expired.' });
    if (!issued.scope.split(' ').includes(PARTICIPANTS_SCOPE))
      return send(400, { code: 4711, message: `Invalid access token, does not contain scopes:[${PARTICIPANTS_SCOPE}].` });
    const uuid = segment.includes('/') ? undefined : resolveUuid(segment);
    const meeting = uuid === undefined ? undefined : meetings.get(uuid);
    record.meetingUuid = meeting?.state === 'known' ? uuid : undefined;
    if (meeting?.state === 'year-old') return send(400, { code: 12702, message: 'Can not access a meeting a year ago.' });
    if (uuid === undefined || meeting?.state !== 'known') {
      // Zoom names the uuid as its router saw it: decoded once, leading slashes gone.
      const named = (decode(segment) ?? segment).replace(/^\/+/, '');
      return send(404, { code: 3001, message: `Meeting does not exist: ${named}.` });
    }
    const requested = Number(query.get('page_size') ?? 30);
    const pageSize = Math.min(Number.isInteger(requested) && requested > 0 ? Math.min(requested, 300) : 30, maxPageSize);
    const nextToken = query.get('next_page_token') ?? '';
    const cursor = nextToken === '' ? { uuid, offset: 0 } : pageTokens.get(nextToken);
    if (!cursor || cursor.uuid !== uuid) return send(400, { code: 300, message: 'The next page token is invalid or expired.' });
    const all = meeting.participants;
    const end = cursor.offset + pageSize;
    let next = '';
    if (end < all.length) {
      next = randomBytes(24).toString('base64url');
      pageTokens.set(next, { uuid, offset: end });
    }
    send(200, {
      page_count: Math.ceil(all.length / pageSize),
      page_size: pageSize,
      total_records: all.length,
      next_page_token: next,
      participants: all.slice(cursor.offset, end),
    });
  }

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const [rawPath = '/', rawQuery = ''] = (req.url ?? '/').split(/\?(.*)/s);
    const query = new URLSearchParams(rawQuery);
    const body = raw === '' ? undefined : /x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '') ? Object.fromEntries(new URLSearchParams(raw)) : raw;
    const pick = (name: 'authorization' | 'content-type' | 'user-agent') => {
      const value = req.headers[name];
      return typeof value === 'string' ? { [name]: value } : {};
    };
    const participants = /^\/v2\/past_meetings\/(.*)\/participants$/.exec(rawPath);
    const record: RecordedZoomRequest = {
      target: rawPath === '/oauth/token' ? 'token' : participants ? 'participants' : undefined,
      method: req.method ?? '',
      rawPath,
      query: Object.fromEntries(query),
      headers: { ...pick('authorization'), ...pick('content-type'), ...pick('user-agent') },
      body,
      meetingUuid: undefined,
      status: undefined,
      at: Date.now(),
    };
    requests.push(record);
    const send: Send = (status, payload, headers = {}) => {
      record.status = status;
      res.writeHead(status, {
        ...(payload === undefined ? {} : { 'content-type': 'application/json;charset=UTF-8' }),
        'x-zm-trackingid': `v=2.0;clid=us06;rid=WEB_${randomBytes(16).toString('hex')}`,
        ...headers,
      });
      res.end(payload === undefined ? '' : JSON.stringify(payload));
    };
    if (record.target === undefined) return send(404, { code: 404, message: `No such API on the fake Zoom: ${rawPath}` });
    if (record.method !== (record.target === 'token' ? 'POST' : 'GET')) return send(405, { code: 405, message: 'Method not allowed.' });
    const failure = takeFailure(record.target);
    if (failure) return sendFailure(send, failure);
    if (record.target === 'token') return handleToken(req, query, body, send);
    handleParticipants(req, participants![1]!, query, record, send);
  };

  const meetingOf = (uuid: string) => {
    let meeting = meetings.get(uuid);
    if (!meeting) meetings.set(uuid, (meeting = { participants: [], state: 'known' }));
    return meeting;
  };

  return {
    async start() {
      server = createServer((req, res) => void onRequest(req, res));
      url = (await listenOnLoopback(server)).url;
      return { oauthUrl: `${url}/oauth/token`, apiUrl: `${url}/v2` };
    },
    get url() {
      return url;
    },
    get oauthUrl() {
      return `${url}/oauth/token`;
    },
    get apiUrl() {
      return `${url}/v2`;
    },
    requests,
    tokensIssued,
    setParticipants(uuid, participants) {
      const meeting = meetingOf(uuid);
      const joined = Date.now() - 3_600_000;
      meeting.state = 'known';
      meeting.participants = participants.map((input, index) => {
        const join = Date.parse(input.join_time ?? isoSeconds(joined + index * 1000));
        const leave = Date.parse(input.leave_time ?? isoSeconds(join + 2_400_000));
        return {
          id: input.id ?? randomBytes(16).toString('base64url').slice(0, 22),
          name: input.name,
          user_email: input.user_email ?? '',
          join_time: isoSeconds(join),
          leave_time: isoSeconds(leave),
          duration: input.duration ?? Math.round((leave - join) / 1000),
          ...(input.registrant_id === undefined ? {} : { registrant_id: input.registrant_id }),
          status: input.status ?? 'in_meeting',
        };
      });
      return meeting.participants;
    },
    forgetMeeting(uuid, forgetOptions = {}) {
      meetingOf(uuid).state = forgetOptions.yearOld ? 'year-old' : 'forgotten';
    },
    expireTokens() {
      for (const token of tokensIssued) token.expiresAt = Math.min(token.expiresAt, Date.now());
    },
    fail(target, status, failOptions = {}) {
      for (let i = 0; i < (failOptions.times ?? 1); i += 1) {
        failures.push({ target, status, headers: failOptions.headers, body: failOptions.body, skip: i === 0 ? (failOptions.after ?? 0) : 0 });
      }
    },
    requestsOf: (target) => requests.filter((request) => request.target === target),
    async close() {
      if (!server) return;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server?.close(() => resolve()));
      server = undefined;
    },
  };
}

export async function startFakeZoom(options: FakeZoomOptions): Promise<FakeZoom> {
  const fake = createFakeZoom(options);
  await fake.start();
  return fake;
}
