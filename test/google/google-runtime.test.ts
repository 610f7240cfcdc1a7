import { describe, expect, it } from 'vitest';

import { createGoogleRuntime } from '../../src/google/google-runtime.ts';
import { ConfigError, parseConfig, secretValues } from '../../src/settings.ts';
import { createSqlChannelStore } from '../../src/store/sql-channel-store.ts';
import { captureLogs } from '../support/log-capture.ts';
import { testKeyPair, testServiceAccountKey } from './support/service-account-key.ts';

const store = { ingest: async () => ({ created: [], duplicates: [] }), enqueue: async () => [] };
const channels = createSqlChannelStore({ dialect: 'sqlite', query: async () => [] });
const runtimeFor = (env: Record<string, string>) => createGoogleRuntime(parseConfig(env), { store, channels, logger: captureLogs().logger });

describe('createGoogleRuntime', () => {
  it('when no key and no calendars are configured, then Google watching is off', () => {
    expect(runtimeFor({})).toBeUndefined();
  });

  it('when calendars are listed without a key, or a key without PUBLIC_BASE_URL, then start-up fails with the setting to fix', () => {
    expect(() => runtimeFor({ GOOGLE_CALENDAR_IDS: 'ana@example.com' })).toThrow(ConfigError);
    expect(() => runtimeFor({ GOOGLE_CALENDAR_IDS: 'ana@example.com' })).toThrow(/GOOGLE_SERVICE_ACCOUNT_KEY/);
    expect(() => runtimeFor({ GOOGLE_SERVICE_ACCOUNT_KEY: testServiceAccountKey('https://oauth2.googleapis.com/token') })).toThrow(/PUBLIC_BASE_URL/);
  });

  it('when fully configured, then the calendar-sync handler is offered for registration', async () => {
    const runtime = runtimeFor({
      GOOGLE_SERVICE_ACCOUNT_KEY: testServiceAccountKey('https://oauth2.googleapis.com/token'),
      PUBLIC_BASE_URL: 'https://bridge.example.com',
    });

    expect(Object.keys(runtime?.handlers ?? {})).toEqual(['calendar-sync']);
    await runtime?.close();
  });

  it('when the key and webhook secrets are configured, then the logger is told to redact them, the private key included', () => {
    const key = testServiceAccountKey('https://oauth2.googleapis.com/token');
    const secrets = secretValues(parseConfig({ GOOGLE_SERVICE_ACCOUNT_KEY: key, CALENDAR_WEBHOOK_SECRETS: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }));

    expect(secrets).toEqual(expect.arrayContaining([key, testKeyPair().privateKeyPem, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']));
  });
});
