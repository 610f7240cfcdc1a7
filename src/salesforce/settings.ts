import { z } from 'zod';

import { parseCidr } from '../core/cidr-allowlist.ts';
import { csv, duration, durationOrOff, int, optionalText, secretToken, type SettingsOf, url } from '../core/setting-kinds.ts';

const salesforceOrgId = z.string().regex(/^00D[0-9A-Za-z]{12}([0-9A-Za-z]{3})?$/, 'expected a Salesforce organization id (00D…, 15 or 18 characters)');

/** Outbound Messages in (which orgs, how large, from where) and the connected app the lookups sign in with. */
export const salesforceSettings = {
  SALESFORCE_ORG_IDS: csv(
    { description: 'Allowed Salesforce organization ids (15 or 18 characters, comma-separated)', example: '00D8d0000001XyZEAU' },
    salesforceOrgId,
  ),
  SALESFORCE_MAX_BODY: int(2 * 1024 * 1024, 1024, 64 * 1024 * 1024, {
    description: 'Largest Outbound Message body accepted, in bytes',
    example: '2097152',
  }),
  SALESFORCE_ALLOWED_CIDRS: csv(
    {
      description:
        'When set, only these client addresses (IPv4/IPv6 CIDRs, comma-separated; the address as TRUST_PROXY computes it) may post Outbound Messages; others get 403',
      example: '13.108.0.0/14,96.43.144.0/20',
    },
    z.string().refine((entry) => parseCidr(entry) !== undefined, 'each entry must be an IPv4 or IPv6 address or CIDR such as 13.108.0.0/14'),
  ),
  SALESFORCE_LOGIN_URL: url('https://login.salesforce.com', {
    description: 'Salesforce OAuth 2.0 login URL (My Domain URL for the client credentials flow)',
    example: 'https://login.salesforce.com',
  }),
  SALESFORCE_API_VERSION: z
    .string()
    .regex(/^\d+\.\d$/, 'expected a version such as 62.0')
    .default('62.0')
    .meta({ description: 'Salesforce REST API version for lookups', example: '62.0' }),
  SALESFORCE_CLIENT_ID: optionalText({ description: 'Connected app consumer key (JWT bearer or client credentials flow)', example: '3MVG9…' }),
  SALESFORCE_CLIENT_SECRET: secretToken({ description: 'Connected app consumer secret (client credentials flow)', example: 's3cr3t' }),
  SALESFORCE_USERNAME: optionalText({ description: 'Integration user for the JWT bearer flow', example: 'bridge@example.com' }),
  // A PEM keeps its line breaks (or has them written as \n): checked as a key at start (auth-from-config.ts), not as one token.
  SALESFORCE_PRIVATE_KEY: optionalText({ description: 'PEM private key for the JWT bearer flow', example: '-----BEGIN PRIVATE KEY-----…', secret: true }),
  SALESFORCE_PRIVATE_KEY_FILE: optionalText({ description: 'Path of the PEM private key for the JWT bearer flow', example: '/run/secrets/sf-key.pem' }),
  SALESFORCE_LOOKUP_CACHE_TTL: duration('10m', { description: 'How long CRM lookups (owner email, attendee matches) are cached', example: '10m' }),
  REMATCH_SWEEP_INTERVAL: durationOrOff('1h', {
    description:
      'How often Salesforce is asked what changed (SystemModstamp) to re-match meetings, with lookups configured; off to rely on Outbound Messages alone',
    example: '1h',
  }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof salesforceSettings> {}
}
