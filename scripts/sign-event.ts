import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/*
 * Signs a calendar event the way a sender must (Standard Webhooks, docs/calendars.md) and posts it
 * to the bridge's signed generic route:
 *
 *   CALENDAR_WEBHOOK_SECRETS=whsec_… node scripts/sign-event.ts [bridge URL] [body.json]
 *
 * The secret is the first of CALENDAR_WEBHOOK_SECRETS, the setting the bridge reads; the URL
 * defaults to http://localhost:8080 and the body to SAMPLE_EVENT. It prints the bridge's answer
 * and exits 0 when the event was stored (202) or was already stored (200), 1 otherwise.
 *
 * The signature is written here from the specification on purpose, not imported from src/: a
 * test checks that the bridge's verifier accepts what this script signs.
 */

export const CALENDAR_EVENTS_PATH = '/calendar/events';

/** A meeting with an opportunity id set on purpose, so it maps without Salesforce lookups. */
export const SAMPLE_EVENT = {
  version: 1,
  id: 'sample-meeting-1',
  sourceType: 'MS_TEAMS',
  title: 'Globex pricing review',
  start: '2026-03-02T16:00:00Z',
  end: '2026-03-02T16:30:00Z',
  organizer: { email: 'ana.rep@example.com', name: 'Ana Rep' },
  attendees: [{ email: 'hank.buyer@globex.test', name: 'Hank Buyer' }],
  salesforce: { opportunityId: '0068d0000101XyZAAU' },
};

/**
 * The three headers signing `body`, exactly the bytes that are sent: `v1,` and the base64
 * HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed with the base64-decoded part after `whsec_`.
 */
export function signatureHeaders(secret: string, body: string, id: string, timestamp: number): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}

/** Posts `body` signed with `secret` to the bridge at `bridgeUrl`; a fresh webhook-id each time. */
export async function postSignedEvent(bridgeUrl: string, secret: string, body: string): Promise<Response> {
  const headers = signatureHeaders(secret, body, `msg_${randomUUID()}`, Math.floor(Date.now() / 1000));
  return fetch(`${bridgeUrl.replace(/\/+$/, '')}${CALENDAR_EVENTS_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

async function main(): Promise<number> {
  const secret = (process.env.CALENDAR_WEBHOOK_SECRETS ?? '').split(',')[0]?.trim() ?? '';
  if (!secret.startsWith('whsec_')) {
    process.stderr.write('set CALENDAR_WEBHOOK_SECRETS to the bridge’s secret (whsec_…); the first one signs\n');
    return 1;
  }
  const [bridgeUrl = 'http://localhost:8080', bodyFile] = process.argv.slice(2);
  const body = bodyFile === undefined ? JSON.stringify(SAMPLE_EVENT) : readFileSync(bodyFile, 'utf8');
  const response = await postSignedEvent(bridgeUrl, secret, body);
  process.stdout.write(`${response.status} ${await response.text()}\n`);
  return response.status === 200 || response.status === 202 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
