import { randomBytes } from 'node:crypto';

import fc from 'fast-check';

import { genericCalendarEventSchema } from '../../../src/calendar/generic-event-schema.ts';
import { signStandardWebhook } from '../../../src/calendar/standard-webhooks.ts';
import { findUnstorable } from '../../../src/http/inbound-text.ts';
import { ROTATED_SECRET, TEAMS_MEETING, WEBHOOK_SECRET } from '../../calendar/support/signed-events.ts';

/**
 * Hostile deliveries for POST /calendar/events (Standard Webhooks, protocols.md §4): random and
 * mutated JSON correctly signed, and valid events with bad, missing or stale signatures.
 */

export const SECRET = WEBHOOK_SECRET;
const OTHER_SECRET = ROTATED_SECRET;

export const VALID_EVENT = { ...TEAMS_MEETING, salesforce: { opportunityId: '0065w000023STAm' } };

/** How the delivery is signed; `good` is a correct signature with a fresh id and the current time. */
export type Auth =
  | { kind: 'good' }
  | { kind: 'missing'; header: 'webhook-id' | 'webhook-timestamp' | 'webhook-signature' }
  | { kind: 'forged'; signature: string }
  | { kind: 'other-secret' }
  | { kind: 'other-body' }
  | { kind: 'stale'; skewSeconds: number }
  | { kind: 'bad-timestamp'; timestamp: string }
  | { kind: 'bad-id'; id: string };

export interface DeliveryPlan {
  body: Buffer;
  auth: Auth;
  contentType: string;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null', 'utf8');
const validBody = json(VALID_EVENT);

const mutatedEvent: fc.Arbitrary<Buffer> = fc.oneof(
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([where, byte]) => {
    const bytes = Buffer.from(validBody);
    bytes[where % bytes.length] = byte;
    return bytes;
  }),
  fc.nat().map((where) => validBody.subarray(0, where % validBody.length)),
  fc.tuple(fc.constantFrom(...Object.keys(VALID_EVENT)), fc.jsonValue()).map(([key, value]) => json({ ...VALID_EVENT, [key]: value })),
  fc.constantFrom(...Object.keys(VALID_EVENT)).map((key) => json(Object.fromEntries(Object.entries(VALID_EVENT).filter(([k]) => k !== key)))),
  fc.integer({ min: 1_000, max: 200_000 }).map((size) => json({ ...VALID_EVENT, title: 'T'.repeat(size) })),
  fc.string({ unit: 'binary', maxLength: 300 }).map((text) => json({ ...VALID_EVENT, title: text, description: text })),
);

const badAuth: fc.Arbitrary<Auth> = fc.oneof(
  fc.constantFrom('webhook-id', 'webhook-timestamp', 'webhook-signature').map((header): Auth => ({ kind: 'missing', header })),
  fc
    .oneof(
      fc.base64String(),
      fc.string({ maxLength: 200 }),
      fc.base64String().map((b64) => `v1,${b64}`),
      fc.constant('v2,abc v1'),
    )
    .map((signature): Auth => ({ kind: 'forged', signature })),
  fc.constant<Auth>({ kind: 'other-secret' }),
  fc.constant<Auth>({ kind: 'other-body' }),
  fc.oneof(fc.integer({ min: 301, max: 10_000_000 }), fc.integer({ min: -10_000_000, max: -301 })).map((skewSeconds): Auth => ({ kind: 'stale', skewSeconds })),
  fc
    .oneof(fc.constant('-5'), fc.constant('1.5'), fc.constant('1e9'), fc.constant(''), fc.string({ maxLength: 20 }))
    .map((timestamp): Auth => ({ kind: 'bad-timestamp', timestamp })),
  // Ids the verifier must refuse (standard-webhooks.ts SANE_ID), in characters a header can carry.
  fc
    .oneof(fc.constant('has space'), fc.constant('x'.repeat(300)), fc.constant('<script>'), fc.string({ minLength: 1, maxLength: 40 }))
    .filter((id) => !/^[A-Za-z0-9._:@-]{1,255}$/.test(id.trim()) && id.trim() !== '')
    .map((id): Auth => ({ kind: 'bad-id', id })),
);

export const hostileDelivery: fc.Arbitrary<DeliveryPlan> = fc.oneof(
  // Correctly signed garbage: only the body checks stand in the way.
  fc.record({
    body: fc.oneof(
      fc.jsonValue().map(json),
      fc.uint8Array({ maxLength: 1024 }).map((b) => Buffer.from(b)),
      mutatedEvent,
    ),
    auth: fc.constant<Auth>({ kind: 'good' }),
    contentType: fc.constant('application/json'),
  }),
  // A valid event with every way the signature can be wrong.
  fc.record({ body: fc.constant(validBody), auth: badAuth, contentType: fc.constant('application/json') }),
  fc.record({
    body: fc.constant(validBody),
    auth: fc.constant<Auth>({ kind: 'good' }),
    contentType: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'text/xml', ''),
  }),
);

/** Builds the headers the plan asks for, with `id` as the fresh webhook-id. */
export function headersFor(plan: DeliveryPlan, id: string, nowMs: number): Record<string, string> {
  const now = Math.floor(nowMs / 1000);
  const { auth } = plan;
  const timestamp = auth.kind === 'stale' ? now + auth.skewSeconds : now;
  const webhookId = auth.kind === 'bad-id' ? auth.id : id;
  const signature =
    auth.kind === 'forged'
      ? auth.signature
      : auth.kind === 'other-secret'
        ? signStandardWebhook(OTHER_SECRET, webhookId, timestamp, plan.body)
        : auth.kind === 'other-body'
          ? signStandardWebhook(SECRET, webhookId, timestamp, randomBytes(32))
          : signStandardWebhook(SECRET, webhookId, timestamp, plan.body);
  const headers: Record<string, string> = {
    'webhook-id': webhookId,
    'webhook-timestamp': auth.kind === 'bad-timestamp' ? auth.timestamp : String(timestamp),
    'webhook-signature': signature,
  };
  if (plan.contentType !== '') headers['content-type'] = plan.contentType;
  if (auth.kind === 'missing') delete headers[auth.header];
  return headers;
}

/** Whether the bridge may store this delivery: correctly signed, JSON content type, and a schema-valid body. */
export function isAcceptable(plan: DeliveryPlan): boolean {
  if (plan.auth.kind !== 'good' || plan.contentType !== 'application/json') return false;
  try {
    const body: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plan.body));
    // Text a store cannot hold (U+0000, an unpaired surrogate) is refused at the edge whatever the schema says.
    return findUnstorable(body) === undefined && genericCalendarEventSchema.safeParse(body).success;
  } catch {
    return false;
  }
}
