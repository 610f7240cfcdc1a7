import { readFileSync } from 'node:fs';

import type { JWT } from 'google-auth-library';
import { z } from 'zod';

import { ConfigError } from '../core/config.ts';
import { AppError } from '../core/errors.ts';

/**
 * Google auth for a Workspace (docs/protocols.md §3): a service account with domain-wide delegation,
 * one JWT client per calendar owner (`subject`). Read-only: the bridge never writes a calendar.
 * Domain-wide delegation must grant exactly this scope to the service account's client id.
 */
export const CALENDAR_SCOPE = 'https://www.googleapis.com/auth/calendar.readonly';

// google-auth-library signs the assertion for, and posts it to, this address whatever the key says.
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

const serviceAccountKeySchema = z.looseObject({
  type: z.literal('service_account', { error: 'expected "type": "service_account"' }).optional(),
  client_email: z.email({ error: 'expected the service account email in client_email' }),
  private_key: z.string().includes('PRIVATE KEY', { error: 'expected a PEM private key in private_key' }),
  private_key_id: z.string().optional(),
  token_uri: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL in token_uri' }).optional(),
});

export type ServiceAccountKey = z.infer<typeof serviceAccountKeySchema>;

export interface GoogleAuth {
  /** A bearer token acting as `subject` (cached and refreshed by google-auth-library). */
  accessToken(subject: string): Promise<string>;
  readonly clientEmail: string;
}

/** Reads the key from GOOGLE_SERVICE_ACCOUNT_KEY (JSON) or GOOGLE_SERVICE_ACCOUNT_KEY_FILE; undefined when neither is set. */
export function loadServiceAccountKey(settings: { json?: string; file?: string }): ServiceAccountKey | undefined {
  if (settings.json !== undefined && settings.file !== undefined) {
    throw new ConfigError(['GOOGLE_SERVICE_ACCOUNT_KEY: set either GOOGLE_SERVICE_ACCOUNT_KEY or GOOGLE_SERVICE_ACCOUNT_KEY_FILE, not both']);
  }
  const source = settings.json !== undefined ? 'GOOGLE_SERVICE_ACCOUNT_KEY' : 'GOOGLE_SERVICE_ACCOUNT_KEY_FILE';
  let text = settings.json;
  if (text === undefined && settings.file !== undefined) {
    try {
      text = readFileSync(settings.file, 'utf8');
    } catch (error) {
      throw new ConfigError([`${source}: cannot read ${settings.file}: ${(error as Error).message}`]);
    }
  }
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Never quote the text: it holds a private key.
    throw new ConfigError([`${source}: not valid JSON`]);
  }
  const parsed = serviceAccountKeySchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError([`${source}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`]);
  }
  return parsed.data;
}

// google-auth-library is loaded at the first token request: a bridge without Google never loads it.
async function clientFor(key: ServiceAccountKey, subject: string): Promise<JWT> {
  const { JWT } = await import('google-auth-library');
  const client = new JWT({ email: key.client_email, key: key.private_key, keyId: key.private_key_id, scopes: [CALENDAR_SCOPE], subject });
  const tokenUri = key.token_uri;
  if (tokenUri !== undefined && tokenUri !== GOOGLE_TOKEN_URL) {
    // The library ignores token_uri; honouring it lets a key point at a private endpoint or a test fake.
    client.transporter.interceptors.request.add({
      resolved: async (options) => {
        if (options.url.href === GOOGLE_TOKEN_URL) options.url = new URL(tokenUri);
        return options;
      },
    });
  }
  return client;
}

export function createGoogleAuth(key: ServiceAccountKey): GoogleAuth {
  const clients = new Map<string, Promise<JWT>>();
  return {
    clientEmail: key.client_email,
    async accessToken(subject) {
      let client = clients.get(subject);
      if (client === undefined) {
        client = clientFor(key, subject);
        clients.set(subject, client);
        // A client that could not be made is made again next time, as before it was cached.
        client.catch(() => clients.delete(subject));
      }
      const { token } = await (await client).getAccessToken();
      if (!token) throw new AppError('google_auth_failed', `no access token for ${subject}`);
      return token;
    },
  };
}
