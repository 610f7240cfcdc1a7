import { z } from 'zod';

import { csv, int, type SettingsOf } from '../core/setting-kinds.ts';

/** Signed generic calendar events in, and the company's own domains that never drive CRM matching. */
export const calendarSettings = {
  CALENDAR_WEBHOOK_SECRETS: csv(
    {
      description: 'Standard Webhooks secrets (whsec_ + base64) accepted on POST /calendar/events, comma-separated for rotation; empty disables the route',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      secret: true,
    },
    z.string().regex(/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/, 'each secret must be whsec_ followed by base64 (at least 12 bytes)'),
  ),
  CALENDAR_MAX_BODY: int(256 * 1024, 1024, 16 * 1024 * 1024, { description: 'Largest signed calendar event body accepted, in bytes', example: '262144' }),
  INTERNAL_EMAIL_DOMAINS: csv(
    { description: 'Email domains of the company itself: their attendees never drive CRM matching (comma-separated)', example: 'example.com,example.co.uk' },
    z
      .string()
      .regex(/^[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/, 'expected a domain such as example.com')
      .transform((value) => value.toLowerCase()),
  ),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof calendarSettings> {}
}
