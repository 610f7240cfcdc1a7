import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';

import * as grpc from '@grpc/grpc-js';
import { describe, expect, it, vi } from 'vitest';

import { createPubSubClient } from '../../../src/salesforce/pubsub/grpc-client.ts';
import { rootCertificates, trustFromEnvironment } from '../../../src/salesforce/pubsub/trust.ts';
import { TEST_CERT_FILE } from '../../fakes/trust-test-ca.ts';
import { cleanupAfterEach } from '../../support/cleanups.ts';
import { startLoopbackPubSub } from './support/loopback-pubsub.ts';

// grpc-js reads this once when it loads; the machines this runs on set it, and so does this file,
// so the test shows the explicit roots winning over it.
const SYSTEM_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
// vi.hoisted runs before the imports above, so grpc-js sees the variable when it loads.
vi.hoisted(() => {
  process.env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH ??= '/etc/ssl/certs/ca-certificates.crt';
});

const TEST_CERT = fileURLToPath(TEST_CERT_FILE);
const AUTH = () => ({ accessToken: 'token-1', instanceUrl: 'https://example.my.salesforce.com', tenantId: '00D000000000001EAA' });
const cleanups = cleanupAfterEach();

async function loopback() {
  const server = await startLoopbackPubSub();
  cleanups.push(server.close);
  return server;
}

describe('Pub/Sub channel trust', () => {
  it('when GRPC_DEFAULT_SSL_ROOTS_FILE_PATH names the system bundle and the extra file holds the test certificate, then a TLS call to the loopback server succeeds', async () => {
    expect(process.env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH).toBe(SYSTEM_BUNDLE);
    const server = await loopback();
    const client = createPubSubClient({ endpoint: server.endpoint, auth: AUTH, trust: { extraCaFile: TEST_CERT } });
    cleanups.push(() => client.close());

    const topic = await client.getTopic('/data/OpportunityChangeEvent');

    expect(topic).toMatchObject({ topic_name: '/data/OpportunityChangeEvent', can_subscribe: true });
    expect(server.calls.map((call) => call.method)).toEqual(['GetTopic']);
  });

  it('when the extra file is only the system bundle, then the call fails UNAVAILABLE on the certificate and reaches no handler', async () => {
    const server = await loopback();
    const client = createPubSubClient({ endpoint: server.endpoint, auth: AUTH, trust: { extraCaFile: SYSTEM_BUNDLE } });
    cleanups.push(() => client.close());

    const failure = await client.getTopic('/data/OpportunityChangeEvent').then(
      () => undefined,
      (error: unknown) => error as grpc.ServiceError,
    );

    expect(failure?.code).toBe(grpc.status.UNAVAILABLE);
    expect(failure?.details).toMatch(/certificate/i);
    expect(server.calls).toEqual([]);
  });

  it('when no extra file is named, then the roots are exactly Node bundled roots', () => {
    const roots = rootCertificates({}).toString('utf8');

    expect(roots.split('-----BEGIN CERTIFICATE-----').length - 1).toBe(tls.rootCertificates.length);
  });

  it('when an extra file is named, then its certificate is added after Node bundled roots', () => {
    const roots = rootCertificates({ extraCaFile: TEST_CERT }).toString('utf8');

    expect(roots.split('-----BEGIN CERTIFICATE-----').length - 1).toBe(tls.rootCertificates.length + 1);
    expect(roots.trimEnd().endsWith('-----END CERTIFICATE-----')).toBe(true);
  });

  it('when the named file cannot be read, then a clear error names the file', () => {
    const missing = join(tmpdir(), 'no-such-ca.pem');

    expect(() => rootCertificates({ extraCaFile: missing })).toThrow(
      expect.objectContaining({ code: 'pubsub_trust_unreadable', message: expect.stringContaining(missing) }),
    );
  });

  it('when the named file holds no PEM certificate, then a clear error names the file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pubsub-trust-')), 'junk.pem');
    writeFileSync(file, 'not a certificate\n');

    expect(() => rootCertificates({ extraCaFile: file })).toThrow(/holds no PEM certificate/);
  });

  it('when NODE_EXTRA_CA_CERTS is set or empty, then the environment trust follows it', () => {
    expect(trustFromEnvironment({ NODE_EXTRA_CA_CERTS: TEST_CERT })).toEqual({ extraCaFile: TEST_CERT });
    expect(trustFromEnvironment({ NODE_EXTRA_CA_CERTS: '' })).toEqual({});
    expect(trustFromEnvironment({})).toEqual({});
  });
});
