import { z } from 'zod';

import { csv, duration, int, optionalText, type SettingsOf, url } from '../core/setting-kinds.ts';

/** Google Calendar push channels and incremental sync (docs/protocols.md §3). */
export const googleSettings = {
  GOOGLE_SERVICE_ACCOUNT_KEY_FILE: optionalText({
    description: 'Path of the Google service account JSON key (domain-wide delegation) used to read the watched calendars',
    example: '/run/secrets/google-sa.json',
  }),
  // A JSON document, checked as a key at start (service-account.ts), never quoted in an error.
  GOOGLE_SERVICE_ACCOUNT_KEY: optionalText({
    description: 'The Google service account JSON key itself, instead of GOOGLE_SERVICE_ACCOUNT_KEY_FILE',
    example: '{"type":"service_account","client_email":"bridge@project.iam.gserviceaccount.com","private_key":"-----BEGIN PRIVATE KEY-----…"}',
    secret: true,
  }),
  GOOGLE_CALENDAR_API_URL: url('https://www.googleapis.com/calendar/v3', {
    description: 'Google Calendar API base URL',
    example: 'https://www.googleapis.com/calendar/v3',
  }),
  GOOGLE_CALENDAR_IDS: csv(
    {
      description: 'Calendars to watch at start (owner emails, comma-separated); more can be added at run time',
      example: 'ana.rep@example.com,bo.rep@example.com',
    },
    z.email("each calendar id must be its owner's email address").transform((value) => value.toLowerCase()),
  ),
  GOOGLE_CHANNEL_TTL: duration('7d', { description: 'Requested lifetime of a Google push channel; renewed at 80 % of its life', example: '7d' }),
  GOOGLE_FULL_SYNC_DAYS: int(30, 0, 3650, { description: 'Full sync window: days back from now (first sync, or after 410 Gone)', example: '30' }),
  GOOGLE_FULL_SYNC_DAYS_AHEAD: int(90, 0, 3650, { description: 'Full sync window: days ahead of now', example: '90' }),
  GOOGLE_BACKSTOP_SYNC: duration('15m', { description: 'Periodic incremental sync of every channel, to catch dropped notifications', example: '15m' }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof googleSettings> {}
}
