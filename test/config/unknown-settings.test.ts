import { describe, expect, it } from 'vitest';

import { bridgePrefixes, editDistance, unknownSettings } from '../../src/core/unknown-settings.ts';
import { settingNames } from '../../src/settings.ts';

describe('unknownSettings', () => {
  it('when MAPPING_RULES is set instead of MAPPING_FILE, then it is reported with MAPPING_FILE as the nearest setting', () => {
    // Arrange
    const env = { MAPPING_RULES: '/etc/bridge/rules.json', MAPPING_FILE: undefined };

    // Act
    const unknown = unknownSettings(env, settingNames());

    // Assert
    expect(unknown).toEqual([{ name: 'MAPPING_RULES', nearest: 'MAPPING_FILE' }]);
  });

  it('when several integrations have a misspelt setting, then each is reported, by name, with its nearest setting', () => {
    // Arrange
    const env = {
      SALESFORCE_ORG_ID: '00D8d0000001XyZEAU',
      MOMENTUM_APIKEY: 'mk_live_secret',
      GOOGLE_CALENDAR_ID: 'ana@example.com',
      MICROSOFT_TENNANT_ID: 'x',
      ZOOM_WEBHOOK_SECRET_TOKEN: 'y',
      CALENDAR_WEBHOOK_SECRET: 'whsec_x',
      ADMIN_API_KEY: 'k',
      DATABASE_URI: 'sqlite:x.db',
    };

    // Act
    const unknown = unknownSettings(env, settingNames());

    // Assert
    expect(Object.fromEntries(unknown.map(({ name, nearest }) => [name, nearest]))).toEqual({
      SALESFORCE_ORG_ID: 'SALESFORCE_ORG_IDS',
      MOMENTUM_APIKEY: 'MOMENTUM_API_KEY',
      GOOGLE_CALENDAR_ID: 'GOOGLE_CALENDAR_IDS',
      MICROSOFT_TENNANT_ID: 'MICROSOFT_TENANT_ID',
      ZOOM_WEBHOOK_SECRET_TOKEN: 'ZOOM_WEBHOOK_SECRET_TOKENS',
      CALENDAR_WEBHOOK_SECRET: 'CALENDAR_WEBHOOK_SECRETS',
      ADMIN_API_KEY: 'ADMIN_API_KEYS',
      DATABASE_URI: 'DATABASE_URL',
    });
  });

  it("when the environment holds known settings, other software's variables and Node's own, then none of them is reported", () => {
    // Arrange
    const env = {
      MAPPING_FILE: 'rules.json',
      PORT: '8080',
      PATH: '/usr/bin',
      HOME: '/home/node',
      HOSTNAME: 'bridge-0',
      NODE_OPTIONS: '--max-old-space-size=384',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/ca.pem',
      TEST_DATABASE_URL: 'postgres://x',
      KUBERNETES_SERVICE_HOST: '10.0.0.1',
      mapping_rules: 'lower case is not a setting name',
    };

    // Act
    const unknown = unknownSettings(env, settingNames());

    // Assert
    expect(unknown).toEqual([]);
  });

  it('when the prefixes are derived from the setting names, then every integration is covered and NODE_ is not', () => {
    // Act
    const prefixes = bridgePrefixes(settingNames());

    // Assert
    for (const prefix of ['SALESFORCE_', 'MOMENTUM_', 'GOOGLE_', 'MICROSOFT_', 'ZOOM_', 'CALENDAR_', 'ADMIN_', 'MAPPING_', 'DATABASE_', 'WORKER_']) {
      expect(prefixes.has(prefix), prefix).toBe(true);
    }
    expect(prefixes.has('NODE_')).toBe(false);
  });

  it('when distances are computed, then they count single-character insertions, deletions and substitutions', () => {
    expect(editDistance('MAPPING_RULES', 'MAPPING_FILE')).toBe(3);
    expect(editDistance('ADMIN_API_KEY', 'ADMIN_API_KEYS')).toBe(1);
    expect(editDistance('', 'ABC')).toBe(3);
    expect(editDistance('SAME', 'SAME')).toBe(0);
  });
});
