import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

import type { ConfidentialClientApplication } from '@azure/msal-node';

import type { Logger } from '../core/logger.ts';
import { undiciNetworkModule } from './msal-network.ts';

export type GraphCredential = { kind: 'secret'; secret: string } | { kind: 'certificate'; pem: string };

export interface GraphAuthOptions {
  /** MICROSOFT_LOGIN_URL, e.g. https://login.microsoftonline.com */
  loginUrl: string;
  tenantId: string;
  clientId: string;
  credential: GraphCredential;
  /** The resource the token is for: `{Graph origin}/.default` (docs/protocols.md §7). */
  scope: string;
  logger: Logger;
}

export interface GraphAuth {
  accessToken(): Promise<string>;
  close(): Promise<void>;
}

/** The certificate's SHA-256 thumbprint, its private key and x5c chain, as MSAL wants them. */
export function certificateCredential(pem: string): { thumbprintSha256: string; privateKey: string; x5c: string } {
  const certificate = new X509Certificate(pem);
  const privateKey = createPrivateKey(pem).export({ format: 'pem', type: 'pkcs8' }).toString();
  const x5c = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)?.join('\n') ?? certificate.toString();
  return { thumbprintSha256: certificate.fingerprint256.replaceAll(':', ''), privateKey, x5c };
}

export const readCertificateFile = (path: string): string => readFileSync(path, 'utf8');

/**
 * App-only tokens for Graph with Microsoft's own library (client credentials, a client secret or
 * a certificate). MSAL caches the token until shortly before it expires, so each call asks it.
 */
export function createGraphAuth(options: GraphAuthOptions): GraphAuth {
  const network = undiciNetworkModule();
  const login = new URL(options.loginUrl);
  // Read now, so a broken certificate stops the start rather than the first token request.
  const credential =
    options.credential.kind === 'secret' ? { clientSecret: options.credential.secret } : { clientCertificate: certificateCredential(options.credential.pem) };
  // Microsoft's library is loaded at the first token request: a bridge without Microsoft 365 never loads it.
  let app: Promise<ConfidentialClientApplication> | undefined;
  const client = () =>
    (app ??= import('@azure/msal-node').then(
      ({ ConfidentialClientApplication, LogLevel }) =>
        new ConfidentialClientApplication({
          auth: {
            clientId: options.clientId,
            authority: `${login.origin}${login.pathname.replace(/\/+$/, '')}/${encodeURIComponent(options.tenantId)}`,
            // A known authority is trusted as it is: MSAL asks no other host (no instance discovery).
            knownAuthorities: [login.host],
            ...credential,
          },
          system: {
            networkClient: network,
            loggerOptions: {
              piiLoggingEnabled: false,
              logLevel: LogLevel.Warning,
              loggerCallback: (level, message) => {
                if (level <= LogLevel.Error) options.logger.warn('microsoft token library', { message: message.slice(0, 500) });
              },
            },
          },
        }),
    ));

  return {
    async accessToken() {
      const result = await (await client()).acquireTokenByClientCredential({ scopes: [options.scope] });
      if (!result?.accessToken) throw new Error('the Microsoft identity platform returned no access token');
      return result.accessToken;
    },
    close: () => network.close(),
  };
}
