import { z } from 'zod';

import { csv, int, optionalText, secretToken, type SettingsOf, url } from '../core/setting-kinds.ts';

/** Zoom cloud recordings become imports (docs/protocols.md §8). */
export const zoomSettings = {
  ZOOM_WEBHOOK_SECRET_TOKENS: csv(
    {
      description: "Secret tokens of the Zoom app's event subscription, comma-separated for rotation; empty disables POST /recordings/zoom/events (503)",
      example: 'wJXs3cPfRuCtUB2r4Bq9Yw',
      secret: true,
    },
    z.string().min(8, 'each secret token must be at least 8 characters'),
  ),
  ZOOM_ACCOUNT_ID: optionalText({
    description: 'Zoom account id of the Server-to-Server OAuth app (reads meeting participants)',
    example: 'lAAAAAAAAAAAAAAAAAAAAA',
  }),
  ZOOM_CLIENT_ID: optionalText({ description: 'Client id of the Server-to-Server OAuth app', example: 'aBcDeFgHiJkLmNoPqRsTuV' }),
  ZOOM_CLIENT_SECRET: secretToken({ description: 'Client secret of the Server-to-Server OAuth app', example: 's3cr3t…' }),
  ZOOM_API_URL: url('https://api.zoom.us/v2', { description: 'Zoom API base URL', example: 'https://api.zoom.us/v2' }),
  ZOOM_OAUTH_URL: url('https://zoom.us/oauth/token', { description: "Zoom's OAuth token endpoint", example: 'https://zoom.us/oauth/token' }),
  ZOOM_MAX_BODY: int(262144, 1024, 16 * 1024 * 1024, { description: 'Largest Zoom event body accepted, in bytes', example: '262144' }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof zoomSettings> {}
}
