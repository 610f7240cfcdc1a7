import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';

/** The self-signed certificate the fake Microsoft login server presents (see tls/README.md). */
export const TEST_CERT_FILE = new URL('./tls/test-cert.pem', import.meta.url);
export const TEST_KEY_FILE = new URL('./tls/test-key.pem', import.meta.url);

/**
 * Adds the test certificate to this process's default TLS trust, so every connection that names
 * no `ca` of its own — undici's `request()`, `fetch`, msal-node's default network client — trusts
 * the fake login server, while the public roots stay trusted. Calling it again changes nothing.
 */
export function trustTestCertificate(): void {
  const pem = readFileSync(TEST_CERT_FILE, 'utf8');
  const fingerprint = new X509Certificate(pem).fingerprint256;
  const current = tls.getCACertificates('default');
  // Node hands certificates back in its own PEM layout, so compare them by fingerprint, not by text.
  if (current.some((certificate) => new X509Certificate(certificate).fingerprint256 === fingerprint)) return;
  tls.setDefaultCACertificates([...current, pem]);
}
