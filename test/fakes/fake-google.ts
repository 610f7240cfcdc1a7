import type { IncomingMessage, ServerResponse } from 'node:http';

import { restartableServer } from '../support/listen-on-loopback.ts';
import { createFakeCalendars } from './fake-google-calendars.ts';
import { createFakeChannels } from './fake-google-channels.ts';
import { googleError, send } from './fake-google-replies.ts';
import { createTokenEndpoint } from './fake-google-token.ts';
import type { FailureTarget, FakeGoogle, FakeGoogleOptions, RecordedGoogleRequest } from './fake-google-types.ts';
import { scriptedFailures } from './scripted-failures.ts';

export { GOOGLE_TOKEN_AUDIENCE } from './fake-google-token.ts';
export type { FailureTarget, FakeChannel, FakeGoogle, RecordedGoogleRequest } from './fake-google-types.ts';

/**
 * A fake Google on loopback: the OAuth token endpoint (checks the service account's RS256 JWT
 * assertion against the test key's public half), and the Calendar API calls the bridge makes —
 * events.watch, channels.stop, events.list with pages, sync tokens, 410 and scripted failures.
 * It records every request, and can deliver push notifications to a channel's address.
 * This file routes and records; the token endpoint, calendars and channels are beside it.
 */

/** Which call a path is, as scripted failures and `requestsOf` name them. */
function targetOf(path: string): FailureTarget | undefined {
  if (path === '/token') return 'token';
  if (path.endsWith('/events/watch')) return 'watch';
  if (path.endsWith('/channels/stop')) return 'stop';
  return path.endsWith('/events') ? 'list' : undefined;
}

export function createFakeGoogle(options: FakeGoogleOptions): FakeGoogle {
  const requests: RecordedGoogleRequest[] = [];
  const failures = scriptedFailures<FailureTarget>();
  const baseUrl = () => loopback.url;
  const tokens = createTokenEndpoint({ serviceAccountEmail: options.serviceAccountEmail, publicKeyPem: options.publicKeyPem, baseUrl });
  const calendars = createFakeCalendars(options.pageSize ?? 2);
  const channels = createFakeChannels(baseUrl);

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const parsed = new URL(req.url ?? '/', 'http://fake.invalid');
    const subject = tokens.subjectOf(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]);
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // form bodies (the token endpoint) stay text
    }
    requests.push({ method: req.method ?? '', path: parsed.pathname, query: Object.fromEntries(parsed.searchParams), body, subject });

    const target = targetOf(parsed.pathname);
    if (target === undefined) return send(res, 404, googleError(404, 'Not Found', 'notFound'));
    const failure = failures.take(target);
    if (failure)
      return send(
        res,
        failure.status,
        failure.body ?? googleError(failure.status, 'scripted failure', failure.status === 429 ? 'rateLimitExceeded' : 'backendError'),
        failure.headers,
      );
    if (target === 'token') return tokens.handle(raw, res);
    if (subject === undefined) return send(res, 401, googleError(401, 'Invalid Credentials', 'authError'));
    if (target === 'stop') return channels.stop(body, res);
    const calendarId = decodeURIComponent(/\/calendars\/([^/]+)\//.exec(parsed.pathname)?.[1] ?? '');
    // Domain-wide delegation: the token must act as the calendar's owner.
    if (subject !== calendarId) return send(res, 403, googleError(403, 'Forbidden', 'forbidden'));
    if (target === 'watch') return channels.watch(calendarId, (body ?? {}) as Record<string, unknown>, res);
    calendars.list(calendarId, Object.fromEntries(parsed.searchParams), res);
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
    tokensIssued: tokens.tokensIssued,
    channels: channels.channels,
    upsertEvent: (calendarId, event) => calendars.upsertEvent(calendarId, event),
    cancelEvent: (calendarId, eventId) => calendars.cancelEvent(calendarId, eventId),
    invalidateSyncTokens: (calendarId) => calendars.invalidateSyncTokens(calendarId),
    fail: (target, status, failOptions) => failures.fail(target, status, failOptions),
    push: (channelId, state, pushOptions) => channels.push(channelId, state, pushOptions),
    requestsOf: (target) => requests.filter((request) => targetOf(request.path) === target),
    close: () => loopback.close(),
  };
}

export async function startFakeGoogle(options: FakeGoogleOptions): Promise<FakeGoogle> {
  const fake = createFakeGoogle(options);
  await fake.start();
  return fake;
}
