import { signStandardWebhook } from '../../../src/calendar/standard-webhooks.ts';

/** The secret the calendar tests configure (CALENDAR_WEBHOOK_SECRETS), and a second one for rotation. */
export const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const ROTATED_SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';

/** A generic calendar event as a sender posts it: a Teams meeting with one external attendee. Tests add fields by spreading it. */
export const TEAMS_MEETING = {
  version: 1,
  id: 'AAMkAGI2TG93AAA=',
  sourceType: 'MS_TEAMS',
  title: 'Globex pricing review',
  start: '2026-03-02T16:00:00Z',
  end: '2026-03-02T16:30:00Z',
  organizer: { email: 'ana.rep@example.com', name: 'Ana Rep' },
  attendees: [{ email: 'hank.buyer@globex.test', name: 'Hank Buyer' }],
};

export interface SignOptions {
  id?: string;
  /** Unix seconds; now by default. */
  timestamp?: number;
  secret?: string;
  /** The header names: Standard Webhooks' webhook-*, or the svix-* names senders also use. */
  prefix?: 'webhook' | 'svix';
}

/** The three Standard Webhooks headers signing `raw`, exactly the bytes that will be sent. */
export function signedHeaders(raw: string | Buffer, options: SignOptions = {}): Record<string, string> {
  const { id = 'msg_1', timestamp = Math.floor(Date.now() / 1000), secret = WEBHOOK_SECRET, prefix = 'webhook' } = options;
  return { [`${prefix}-id`]: id, [`${prefix}-timestamp`]: String(timestamp), [`${prefix}-signature`]: signStandardWebhook(secret, id, timestamp, raw) };
}

/** POSTs a signed calendar event (JSON text `raw`) to a listening bridge. */
export function postCalendarEvent(url: string, raw: string, options: SignOptions = {}): Promise<Response> {
  return fetch(`${url}/calendar/events`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(raw, options) }, body: raw });
}
