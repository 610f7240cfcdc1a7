import type { RequestHandler } from 'express';

import { allowClients } from '../core/cidr-allowlist.ts';
import type { Config } from '../core/config.ts';
import type { Logger } from '../core/logger.ts';
import { inboundRateLimit } from './rate-limits.ts';

type GuardConfig = Pick<Config, 'SALESFORCE_ALLOWED_CIDRS' | 'INBOUND_RATE_LIMIT'>;

/**
 * What runs before the Salesforce route reads a byte: the client allowlist (when configured),
 * then the per-address rate limit. Refused requests store nothing and are answered as SOAP faults.
 */
export function salesforceGuards(config: GuardConfig, logger: Logger): RequestHandler[] {
  return [
    ...(config.SALESFORCE_ALLOWED_CIDRS.length > 0 ? [allowClients(config.SALESFORCE_ALLOWED_CIDRS, 'Outbound Messages')] : []),
    inboundRateLimit(config.INBOUND_RATE_LIMIT, logger),
  ];
}
