import { z } from 'zod';

import { csv, duration, int, optionalText, secretToken, type SettingsOf, url } from '../core/setting-kinds.ts';

/** Microsoft 365 calendars: Graph change notifications, delta sync, subscription upkeep (docs/protocols.md §7). */
export const microsoftSettings = {
  MICROSOFT_TENANT_ID: optionalText({
    description: 'Azure AD (Entra ID) tenant id of the app registration; set with the client id to watch Outlook calendars',
    example: '8d3c2b1a-1111-2222-3333-444455556666',
  }),
  MICROSOFT_CLIENT_ID: optionalText({
    description: 'Application (client) id of the app registration with application permission Calendars.Read',
    example: '0f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff',
  }),
  MICROSOFT_CLIENT_SECRET: secretToken({
    description: 'Client secret of the app registration (or MICROSOFT_CLIENT_CERTIFICATE_FILE)',
    example: 'Abc8Q~…',
  }),
  MICROSOFT_CLIENT_CERTIFICATE_FILE: optionalText({
    description: "Path of a PEM file holding the app registration's certificate and its private key, instead of MICROSOFT_CLIENT_SECRET",
    example: '/run/secrets/graph-app.pem',
  }),
  MICROSOFT_LOGIN_URL: url('https://login.microsoftonline.com', {
    description: "Microsoft identity platform base URL (a national cloud's, or a test server's); no other login host is called",
    example: 'https://login.microsoftonline.com',
  }),
  MICROSOFT_GRAPH_API_URL: url('https://graph.microsoft.com/v1.0', {
    description: 'Microsoft Graph base URL, version included',
    example: 'https://graph.microsoft.com/v1.0',
  }),
  MICROSOFT_CALENDAR_USERS: csv(
    {
      description: 'Mailboxes whose calendars are watched at start (UPNs or emails, comma-separated); more can be added at run time',
      example: 'ana.rep@example.com,bo.rep@example.com',
    },
    z.email('each mailbox must be a user principal name or email address').transform((value) => value.toLowerCase()),
  ),
  MICROSOFT_SUBSCRIPTION_TTL: duration('3d', {
    description: 'Requested lifetime of a Graph subscription (at most 10080 minutes); renewed at 80 % of its life',
    example: '3d',
  }),
  MICROSOFT_FULL_SYNC_DAYS: int(30, 0, 3650, { description: 'Full delta sync window: days back from now (first sync, or after 410 Gone)', example: '30' }),
  MICROSOFT_FULL_SYNC_DAYS_AHEAD: int(90, 0, 3650, { description: 'Full delta sync window: days ahead of now', example: '90' }),
  MICROSOFT_BACKSTOP_SYNC: duration('15m', { description: 'Periodic delta sync of every mailbox, to catch missed notifications', example: '15m' }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof microsoftSettings> {}
}
