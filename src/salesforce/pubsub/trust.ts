import { readFileSync } from 'node:fs';
import tls from 'node:tls';

import * as grpc from '@grpc/grpc-js';

import { AppError } from '../../core/errors.ts';

export interface TrustOptions {
  /** A PEM file of extra certificate authorities, as NODE_EXTRA_CA_CERTS names one; none when absent. */
  extraCaFile?: string;
}

/** The trust the process was started with: NODE_EXTRA_CA_CERTS when it is set and not empty. */
export function trustFromEnvironment(env: NodeJS.ProcessEnv = process.env): TrustOptions {
  const file = env.NODE_EXTRA_CA_CERTS;
  return file ? { extraCaFile: file } : {};
}

/**
 * The root certificates of the Pub/Sub channel: Node's bundled roots plus the extra file.
 *
 * They are passed to grpc-js explicitly because, left to itself, grpc-js trusts only the file
 * GRPC_DEFAULT_SSL_ROOTS_FILE_PATH names whenever that variable is set, and then ignores both
 * Node's roots and NODE_EXTRA_CA_CERTS (docs/protocols.md, Pub/Sub). The extra file is read here
 * rather than relied on from Node's start-up, so the rule is the same in every process and a
 * test can name its own file. A file that is named but cannot be read is an error, not a quiet
 * fall back to fewer roots: a proxy's or a private CA would then fail later with a vaguer message.
 */
export function rootCertificates(options: TrustOptions = trustFromEnvironment()): Buffer {
  const pems = [...tls.rootCertificates];
  if (options.extraCaFile !== undefined) pems.push(readExtraCa(options.extraCaFile));
  return Buffer.from(`${pems.join('\n')}\n`);
}

/** TLS channel credentials that trust rootCertificates(options). */
export function channelCredentials(options: TrustOptions = trustFromEnvironment()): grpc.ChannelCredentials {
  return grpc.credentials.createSsl(rootCertificates(options));
}

function readExtraCa(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AppError('pubsub_trust_unreadable', `NODE_EXTRA_CA_CERTS names ${file}, which cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new AppError('pubsub_trust_unreadable', `NODE_EXTRA_CA_CERTS names ${file}, which holds no PEM certificate`);
  }
  return text.trim();
}
