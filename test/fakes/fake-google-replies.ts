import type { ServerResponse } from 'node:http';

/** How the fake Google answers: JSON bodies, Google's error shape, and the opaque tokens it hands out. */

export const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
};

export const googleError = (status: number, message: string, reason: string) => ({
  error: { code: status, message, errors: [{ domain: 'global', reason, message }] },
});

/** Page and sync tokens are base64url JSON: opaque to the bridge, readable by the fake. */
export const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export const unb64url = <T>(text: string): T | undefined => {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as T;
  } catch {
    return undefined;
  }
};

/** The address Google names a watched calendar's events by (in a channel and in its push notifications). */
export const resourceUri = (baseUrl: string, calendarId: string) => `${baseUrl}/calendar/v3/calendars/${encodeURIComponent(calendarId)}/events?alt=json`;
