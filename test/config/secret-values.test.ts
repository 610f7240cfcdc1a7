import { describe, expect, it } from 'vitest';

import { parseConfig, secretValues, settingMeta, settingNames } from '../../src/settings.ts';

describe('secretValues', () => {
  it('when every setting marked secret in the schema is set, then each value (each item of a list) is a secret, and nothing else is', () => {
    const secrets = settingNames().filter((name) => settingMeta(name)?.secret === true);
    const privateKey = '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n';
    const config = parseConfig({
      MOMENTUM_API_KEY: 'mk_live_0123456789',
      ADMIN_API_KEYS: 'admin-key-one-long,admin-key-two-long',
      SALESFORCE_CLIENT_SECRET: 'sf-client-secret',
      SALESFORCE_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----sf-----END PRIVATE KEY-----',
      GOOGLE_SERVICE_ACCOUNT_KEY: JSON.stringify({ type: 'service_account', client_email: 'a@b.iam.gserviceaccount.com', private_key: privateKey }),
      CALENDAR_WEBHOOK_SECRETS: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      METRICS_TOKEN: 'a-long-random-scrape-token',
      MICROSOFT_CLIENT_SECRET: 'graph-client-secret',
      ZOOM_WEBHOOK_SECRET_TOKENS: 'zoom-token-one,zoom-token-two',
      ZOOM_CLIENT_SECRET: 'zoom-client-secret',
      SALESFORCE_USERNAME: 'bridge@example.com',
    });

    const values = secretValues(config);

    expect(secrets.sort()).toEqual([
      'ADMIN_API_KEYS',
      'CALENDAR_WEBHOOK_SECRETS',
      'GOOGLE_SERVICE_ACCOUNT_KEY',
      'METRICS_TOKEN',
      'MICROSOFT_CLIENT_SECRET',
      'MOMENTUM_API_KEY',
      'SALESFORCE_CLIENT_SECRET',
      'SALESFORCE_PRIVATE_KEY',
      'ZOOM_CLIENT_SECRET',
      'ZOOM_WEBHOOK_SECRET_TOKENS',
    ]);
    expect(values).toEqual(
      expect.arrayContaining([
        'mk_live_0123456789',
        'admin-key-one-long',
        'admin-key-two-long',
        'sf-client-secret',
        privateKey,
        'a-long-random-scrape-token',
        'graph-client-secret',
        'zoom-token-one',
        'zoom-token-two',
        'zoom-client-secret',
      ]),
    );
    expect(values).not.toContain('bridge@example.com');
  });
});

describe('secretValues: DATABASE_URL', () => {
  it('when DATABASE_URL holds a password, then the password (as written and decoded) is a secret and the rest of the URL is not', () => {
    // Arrange
    const config = parseConfig({ DATABASE_URL: 'postgres://bridge:p%40ss-w0rd@db.internal:5432/bridge' });

    // Act
    const values = secretValues(config);

    // Assert
    expect(values).toEqual(expect.arrayContaining(['p%40ss-w0rd', 'p@ss-w0rd']));
    expect(values.some((value) => value.includes('db.internal') || value.includes('bridge'))).toBe(false);
  });

  it('when DATABASE_URL is SQLite or has no password, then it adds no secret', () => {
    expect(secretValues(parseConfig({ DATABASE_URL: 'sqlite:data/bridge.db' }))).toEqual([]);
    expect(secretValues(parseConfig({ DATABASE_URL: 'postgres://bridge@db.internal:5432/bridge' }))).toEqual([]);
  });
});
