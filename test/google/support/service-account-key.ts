import { generateKeyPairSync } from 'node:crypto';

export const TEST_SERVICE_ACCOUNT = 'bridge@crm-sync-test.iam.gserviceaccount.com';

let pair: { privateKeyPem: string; publicKeyPem: string } | undefined;

/** An RSA key made for the test run (never a key on disk), shared by the tests of one file. */
export function testKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  if (!pair) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    pair = {
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
  }
  return pair;
}

/** A service account key JSON like the one Google issues, with token_uri pointing at the fake. */
export function testServiceAccountKey(tokenUri: string): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: 'crm-sync-test',
    private_key_id: 'test-key-1',
    private_key: testKeyPair().privateKeyPem,
    client_email: TEST_SERVICE_ACCOUNT,
    client_id: '100000000000000000001',
    token_uri: tokenUri,
  });
}
