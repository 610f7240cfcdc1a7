import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createCrmDirectories } from '../../src/crm-directories.ts';
import { ConfigError, parseConfig, secretValues } from '../../src/settings.ts';
import { type FakeSalesforce, startFakeSalesforce } from '../fakes/fake-salesforce.ts';
import { captureLogs } from '../support/log-capture.ts';

const ALICE = '0058d0000101XyZAAU';

const keys = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });

const fakes: FakeSalesforce[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

function configError(env: Record<string, string>): string[] {
  try {
    createCrmDirectories(parseConfig(env), captureLogs().logger);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('createCrmDirectories', () => {
  it('when no Salesforce credentials are set, then there is no directory and the start log says lookups are off', () => {
    const logs = captureLogs();

    const directories = createCrmDirectories(parseConfig({}), logs.logger);

    expect(directories).toEqual({ owners: undefined, attendees: undefined });
    expect(logs.lines()).toEqual([expect.objectContaining({ level: 'warn', message: expect.stringMatching(/^Salesforce lookups are off/) })]);
  });

  it('when a private key file is configured, then the JWT bearer flow is used against SALESFORCE_LOGIN_URL and the key is never logged', async () => {
    const { privateKey, publicKey } = keys();
    const fake = await startFakeSalesforce({ clientId: 'bridge-app', username: 'bridge@example.com', publicKey, users: { [ALICE]: 'alice@example.com' } });
    fakes.push(fake);
    const keyFile = join(mkdtempSync(join(tmpdir(), 'sf-key-')), 'key.pem');
    writeFileSync(keyFile, privateKey);
    const config = parseConfig({
      SALESFORCE_LOGIN_URL: fake.url,
      SALESFORCE_CLIENT_ID: 'bridge-app',
      SALESFORCE_USERNAME: 'bridge@example.com',
      SALESFORCE_PRIVATE_KEY_FILE: keyFile,
      SALESFORCE_LOOKUP_CACHE_TTL: '5m',
    });
    const logs = captureLogs({ secrets: secretValues(config) });

    const directory = createCrmDirectories(config, logs.logger).owners;
    const emails = await directory?.ownerEmails([ALICE]);

    expect(emails).toEqual(new Map([[ALICE, 'alice@example.com']]));
    expect(fake.tokenRequests().map((request) => request.grantType)).toEqual(['urn:ietf:params:oauth:grant-type:jwt-bearer']);
    expect(logs.lines()).toContainEqual(
      expect.objectContaining({ level: 'info', message: 'Salesforce lookups are on', flow: 'jwt-bearer', cacheTtlMs: 300_000 }),
    );
    expect(logs.text()).not.toContain('PRIVATE KEY');
  });

  it('when the private key sits in the environment with \\n for line breaks, then it is still usable', async () => {
    const { privateKey, publicKey } = keys();
    const fake = await startFakeSalesforce({ clientId: 'bridge-app', username: 'bridge@example.com', publicKey, users: { [ALICE]: 'alice@example.com' } });
    fakes.push(fake);
    const config = parseConfig({
      SALESFORCE_LOGIN_URL: fake.url,
      SALESFORCE_CLIENT_ID: 'bridge-app',
      SALESFORCE_USERNAME: 'bridge@example.com',
      SALESFORCE_PRIVATE_KEY: privateKey.trim().split('\n').join('\\n'),
    });

    const emails = await createCrmDirectories(config, captureLogs().logger).owners?.ownerEmails([ALICE]);

    expect(emails).toEqual(new Map([[ALICE, 'alice@example.com']]));
  });

  it('when a client id and secret are configured, then the client credentials flow is used', async () => {
    const fake = await startFakeSalesforce({ clientId: 'bridge-app', clientSecret: 's3cr3t-value', users: { [ALICE]: 'alice@example.com' } });
    fakes.push(fake);
    const config = parseConfig({ SALESFORCE_LOGIN_URL: fake.url, SALESFORCE_CLIENT_ID: 'bridge-app', SALESFORCE_CLIENT_SECRET: 's3cr3t-value' });

    const emails = await createCrmDirectories(config, captureLogs().logger).owners?.ownerEmails([ALICE]);

    expect(emails).toEqual(new Map([[ALICE, 'alice@example.com']]));
    expect(fake.tokenRequests().map((request) => request.grantType)).toEqual(['client_credentials']);
  });

  it('when credentials are only half set, then start is refused naming what each flow needs', () => {
    expect(configError({ SALESFORCE_CLIENT_ID: 'bridge-app' })).toEqual([
      'SALESFORCE_*: Salesforce lookups need SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET (client credentials flow), ' +
        'or SALESFORCE_CLIENT_ID, SALESFORCE_USERNAME and SALESFORCE_PRIVATE_KEY or SALESFORCE_PRIVATE_KEY_FILE (JWT bearer flow)',
    ]);
    expect(configError({ SALESFORCE_CLIENT_ID: 'bridge-app', SALESFORCE_USERNAME: 'bridge@example.com' })).toEqual([
      'SALESFORCE_*: the JWT bearer flow needs SALESFORCE_CLIENT_ID, SALESFORCE_USERNAME and SALESFORCE_PRIVATE_KEY or SALESFORCE_PRIVATE_KEY_FILE',
    ]);
  });

  it('when the private key cannot be used, then start is refused naming the setting', () => {
    const base = { SALESFORCE_CLIENT_ID: 'bridge-app', SALESFORCE_USERNAME: 'bridge@example.com' };
    const missing = join(tmpdir(), 'no-such-dir-for-keys', 'key.pem');

    expect(configError({ ...base, SALESFORCE_PRIVATE_KEY_FILE: missing })[0]).toMatch(/^SALESFORCE_PRIVATE_KEY_FILE: cannot read .*key\.pem: ENOENT/);
    expect(configError({ ...base, SALESFORCE_PRIVATE_KEY: 'not a key' })[0]).toMatch(/^SALESFORCE_PRIVATE_KEY: not a PEM private key/);
    expect(configError({ ...base, SALESFORCE_PRIVATE_KEY: 'x', SALESFORCE_PRIVATE_KEY_FILE: missing })).toEqual([
      'SALESFORCE_PRIVATE_KEY: set either SALESFORCE_PRIVATE_KEY or SALESFORCE_PRIVATE_KEY_FILE, not both',
    ]);
  });
});
