import { describe, expect, it } from 'vitest';

import { loadServiceAccountKey } from '../../src/google/service-account.ts';
import { salesforceAuthFromConfig } from '../../src/salesforce/auth-from-config.ts';
import { ConfigError, parseConfig, settingMeta, settingNames } from '../../src/settings.ts';

/*
 * Every setting marked secret has a way to be wrong, and the error that says so names the setting
 * and what is wrong, never the value. Each case below carries a marker inside the bad value; the
 * marker must not appear in any problem line.
 */

const MARK = 'Zq7MARKERx';

/** The problem lines the start would print for `env`: the schema's, then the check that reads the setting at start. */
function startupProblems(env: Record<string, string>): string[] {
  try {
    const config = parseConfig(env);
    loadServiceAccountKey({ json: config.GOOGLE_SERVICE_ACCOUNT_KEY, file: config.GOOGLE_SERVICE_ACCOUNT_KEY_FILE });
    salesforceAuthFromConfig(config);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(Object.keys(env))}`);
}

const SALESFORCE_JWT = { SALESFORCE_CLIENT_ID: 'bridge-app', SALESFORCE_USERNAME: 'bridge@example.com' };

// One bad value per secret setting; `says` is what the line must say instead of the value.
const CASES: Record<string, { env: Record<string, string>; says: RegExp; hidden?: string }> = {
  MOMENTUM_API_KEY: { env: { MOMENTUM_API_KEY: `mk_live ${MARK}` }, says: /must be one token.*got 18 characters \(not shown: secret\)/ },
  METRICS_TOKEN: { env: { METRICS_TOKEN: `scrape\n${MARK}` }, says: /must be one token.*got 17 characters \(not shown: secret\)/ },
  SALESFORCE_CLIENT_SECRET: { env: { SALESFORCE_CLIENT_SECRET: `s3 ${MARK}` }, says: /must be one token/ },
  MICROSOFT_CLIENT_SECRET: { env: { MICROSOFT_CLIENT_SECRET: `Abc8Q~\t${MARK}` }, says: /must be one token/ },
  ZOOM_CLIENT_SECRET: { env: { ZOOM_CLIENT_SECRET: `${MARK} ${MARK}` }, says: /must be one token/ },
  ADMIN_API_KEYS: {
    env: { ADMIN_API_KEYS: `admin-key-long-enough-1,${MARK}` },
    says: /at least 16 characters; entry 2 of 2 has 10 characters \(not shown: secret\)/,
    hidden: 'admin-key-long-enough-1',
  },
  CALENDAR_WEBHOOK_SECRETS: { env: { CALENDAR_WEBHOOK_SECRETS: `my${MARK}` }, says: /whsec_ followed by base64.*entry 1 of 1 has 12 characters/ },
  // Too short for the marker: the short token itself must not show.
  ZOOM_WEBHOOK_SECRET_TOKENS: {
    env: { ZOOM_WEBHOOK_SECRET_TOKENS: 'wJXs3cPfRuCtUB2r,q7Mx' },
    says: /at least 8 characters; entry 2 of 2 has 4 characters/,
    hidden: 'q7Mx',
  },
  SALESFORCE_PRIVATE_KEY: { env: { ...SALESFORCE_JWT, SALESFORCE_PRIVATE_KEY: `-----BEGIN PRIVATE KEY-----${MARK}` }, says: /not a PEM private key/ },
  GOOGLE_SERVICE_ACCOUNT_KEY: { env: { GOOGLE_SERVICE_ACCOUNT_KEY: `{"private_key": "${MARK}"` }, says: /not valid JSON/ },
};

describe('secret settings: their errors', () => {
  it('when the schema marks a setting secret, then this suite has a case for it', () => {
    // Arrange
    const secrets = settingNames().filter((name) => settingMeta(name)?.secret === true);

    // Act
    const covered = Object.keys(CASES);

    // Assert
    expect(covered.sort()).toEqual(secrets.sort());
  });

  it.each(Object.entries(CASES))('when %s is wrong, then the problem names it and what is wrong, never the value', (name, { env, says, hidden }) => {
    // Act
    const problems = startupProblems(env);

    // Assert
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
    expect(problems[0]).toMatch(says);
    expect(problems[0]).not.toContain(MARK);
    if (hidden !== undefined) expect(problems[0]).not.toContain(hidden);
  });

  it('when a service account key is JSON but not a key, then the problem says which fields, not their values', () => {
    // Arrange
    const json = JSON.stringify({ type: 'service_account', client_email: `not-an-email-${MARK}`, private_key: `raw-${MARK}` });

    // Act
    const problems = startupProblems({ GOOGLE_SERVICE_ACCOUNT_KEY: json });

    // Assert
    expect(problems).toEqual(['GOOGLE_SERVICE_ACCOUNT_KEY: expected the service account email in client_email; expected a PEM private key in private_key']);
  });

  it('when several secrets are wrong at once, then each gets its own line and none shows its value', () => {
    // Arrange
    const env = { ADMIN_API_KEYS: `sh-${MARK}`, CALENDAR_WEBHOOK_SECRETS: `mysecret`, MOMENTUM_API_KEY: `two ${MARK}` };

    // Act
    const problems = startupProblems(env);

    // Assert
    expect(problems.map((line) => line.split(':')[0])).toEqual(['MOMENTUM_API_KEY', 'ADMIN_API_KEYS', 'CALENDAR_WEBHOOK_SECRETS']);
    expect(problems.join('\n')).not.toMatch(new RegExp(`${MARK}|mysecret`));
  });

  it('when DATABASE_URL is invalid and holds a password, then the problem shows the URL with the password masked', () => {
    // Arrange
    const env = { DATABASE_URL: `postgress://bridge:${MARK}@db.internal:5432/bridge` };

    // Act
    const problems = startupProblems(env);

    // Assert
    expect(problems).toEqual([
      'DATABASE_URL: expected sqlite:<path>, sqlite::memory: or postgres://…; got "postgress://bridge:***@db.internal:5432/bridge" (example: DATABASE_URL=sqlite:data/bridge.db)',
    ]);
  });
});
