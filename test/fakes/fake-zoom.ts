import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';
import { createZoomMeetings } from './fake-zoom-meetings.ts';
import { createZoomOAuth } from './fake-zoom-oauth.ts';
import type { FakeZoom, FakeZoomOptions, RecordedZoomRequest, ZoomFailureTarget, ZoomSend } from './fake-zoom-types.ts';
import { type ScriptedFailure, scriptedFailures } from './scripted-failures.ts';

/**
 * A fake Zoom on loopback, one server for the bridge's recording imports (docs/protocols.md §8):
 * - Server-to-Server OAuth: `POST /oauth/token?grant_type=account_credentials&account_id=…` with
 *   HTTP Basic client credentials, issuing bearer tokens that expire (`fake-zoom-oauth.ts`);
 * - the API under `/v2`: `GET /v2/past_meetings/{uuid}/participants`, paged with
 *   `next_page_token`, holding Zoom's rule that a uuid beginning with `/` or holding `//` is
 *   URL-encoded twice (and every other uuid once) (`fake-zoom-meetings.ts`), with scripted failures.
 * It records every request with its path exactly as received. Zoom's webhook sender (signed
 * events, URL validation, `recording.completed`) is in `fake-zoom-webhooks.ts`, re-exported here.
 */

export {
  DEFAULT_ZOOM_SCOPES,
  type FakeZoom,
  type FakeZoomOptions,
  type IssuedZoomToken,
  PARTICIPANTS_SCOPE,
  type RecordedZoomRequest,
  type ZoomFailureTarget,
  type ZoomParticipant,
  type ZoomParticipantInput,
} from './fake-zoom-types.ts';
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

/** A scripted failure, with Zoom's error shape and, for 429, `Retry-After: 1` where the test gave none. */
function sendFailure(send: ZoomSend, failure: ScriptedFailure<ZoomFailureTarget>) {
  const headers = failure.headers ?? (failure.status === 429 ? { 'retry-after': '1' } : {});
  const defaultBody =
    failure.target === 'token'
      ? { reason: 'Scripted failure of the fake Zoom.', error: failure.status === 429 ? 'too_many_requests' : 'server_error' }
      : failure.status === 429
        ? { code: 429, message: 'You have reached the maximum per-second rate limit for this API. Try again later.' }
        : { code: failure.status, message: 'Scripted failure of the fake Zoom.' };
  send(failure.status, failure.body ?? defaultBody, headers);
}

export function createFakeZoom(options: FakeZoomOptions): FakeZoom {
  const requests: RecordedZoomRequest[] = [];
  const failures = scriptedFailures<ZoomFailureTarget>();
  const oauth = createZoomOAuth(options, () => url);
  const meetings = createZoomMeetings(options.pageSize ?? 2);
  let server: Server | undefined;
  let url = '';

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
    const send: ZoomSend = (status, payload, headers = {}) => {
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
    const failure = failures.take(record.target);
    if (failure) return sendFailure(send, failure);
    if (record.target === 'token') return oauth.handleToken(req, query, body, send);
    if (oauth.mayListParticipants(req, send)) meetings.handleParticipants(participants![1]!, query, record, send);
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
    tokensIssued: oauth.tokensIssued,
    setParticipants: (uuid, participants) => meetings.setParticipants(uuid, participants),
    forgetMeeting: (uuid, forgetOptions) => meetings.forgetMeeting(uuid, forgetOptions),
    expireTokens: () => oauth.expireTokens(),
    fail: (target, status, failOptions) => failures.fail(target, status, failOptions),
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
