import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { type Config, ConfigError } from '../core/config.ts';
import type { SalesforceAuth } from './jsforce-connection.ts';

export type SalesforceAuthSettings = Pick<
  Config,
  | 'SALESFORCE_LOGIN_URL'
  | 'SALESFORCE_CLIENT_ID'
  | 'SALESFORCE_CLIENT_SECRET'
  | 'SALESFORCE_USERNAME'
  | 'SALESFORCE_PRIVATE_KEY'
  | 'SALESFORCE_PRIVATE_KEY_FILE'
>;

const JWT_NEEDS = 'SALESFORCE_CLIENT_ID, SALESFORCE_USERNAME and SALESFORCE_PRIVATE_KEY or SALESFORCE_PRIVATE_KEY_FILE';
const CC_NEEDS = 'SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET (client credentials flow)';

function readPrivateKey(config: SalesforceAuthSettings): string {
  if (config.SALESFORCE_PRIVATE_KEY !== undefined && config.SALESFORCE_PRIVATE_KEY_FILE !== undefined) {
    throw new ConfigError(['SALESFORCE_PRIVATE_KEY: set either SALESFORCE_PRIVATE_KEY or SALESFORCE_PRIVATE_KEY_FILE, not both']);
  }
  let pem: string;
  if (config.SALESFORCE_PRIVATE_KEY_FILE !== undefined) {
    try {
      pem = readFileSync(config.SALESFORCE_PRIVATE_KEY_FILE, 'utf8');
    } catch (error) {
      throw new ConfigError([`SALESFORCE_PRIVATE_KEY_FILE: cannot read ${config.SALESFORCE_PRIVATE_KEY_FILE}: ${(error as Error).message}`]);
    }
  } else {
    // A PEM in an environment variable often arrives with its line breaks written as \n.
    pem = (config.SALESFORCE_PRIVATE_KEY ?? '').replace(/\\n/g, '\n');
  }
  try {
    createPrivateKey(pem); // refuse a broken key at start, not at the first lookup
  } catch (error) {
    const name = config.SALESFORCE_PRIVATE_KEY_FILE === undefined ? 'SALESFORCE_PRIVATE_KEY' : 'SALESFORCE_PRIVATE_KEY_FILE';
    throw new ConfigError([`${name}: not a PEM private key (${(error as Error).message})`]);
  }
  return pem;
}

/**
 * The OAuth 2.0 flow the settings describe: JWT bearer when a private key is given, else client
 * credentials. Undefined when no Salesforce credential is set at all (lookups off); a half-set
 * configuration is refused (ConfigError) rather than silently running without lookups.
 */
export function salesforceAuthFromConfig(config: SalesforceAuthSettings): SalesforceAuth | undefined {
  const hasKey = config.SALESFORCE_PRIVATE_KEY !== undefined || config.SALESFORCE_PRIVATE_KEY_FILE !== undefined;
  const anySet =
    config.SALESFORCE_CLIENT_ID !== undefined || config.SALESFORCE_CLIENT_SECRET !== undefined || config.SALESFORCE_USERNAME !== undefined || hasKey;
  if (!anySet) return undefined;

  const clientId = config.SALESFORCE_CLIENT_ID;
  const loginUrl = config.SALESFORCE_LOGIN_URL ?? 'https://login.salesforce.com';
  if (hasKey || config.SALESFORCE_USERNAME !== undefined) {
    const username = config.SALESFORCE_USERNAME;
    if (clientId === undefined || username === undefined || !hasKey) {
      throw new ConfigError([`SALESFORCE_*: the JWT bearer flow needs ${JWT_NEEDS}`]);
    }
    return { flow: 'jwt-bearer', loginUrl, clientId, username, privateKey: readPrivateKey(config) };
  }
  if (clientId === undefined || config.SALESFORCE_CLIENT_SECRET === undefined) {
    throw new ConfigError([`SALESFORCE_*: Salesforce lookups need ${CC_NEEDS}, or ${JWT_NEEDS} (JWT bearer flow)`]);
  }
  return { flow: 'client-credentials', loginUrl, clientId, clientSecret: config.SALESFORCE_CLIENT_SECRET };
}
