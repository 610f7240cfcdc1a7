import { BlockList, isIP } from 'node:net';

import type { RequestHandler } from 'express';

import { AppError } from './errors.ts';

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** `13.108.0.0/14`, `2001:db8::/32`, or a bare address (one host: /32 or /128); undefined when not one. */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', bits, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (rest.length > 0 || version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (bits === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  return { address, prefix: Number(bits), family };
}

/** A membership test over CIDRs (node:net BlockList; an IPv4-mapped IPv6 address matches its IPv4 range). */
export function cidrMatcher(cidrs: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (cidr === undefined) throw new Error(`not a CIDR: ${JSON.stringify(text)}`);
    list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return (address) => {
    const version = address === undefined ? 0 : isIP(address);
    return version !== 0 && list.check(address as string, version === 4 ? 'ipv4' : 'ipv6');
  };
}

/**
 * Refuses (403, nothing read or stored) a client whose address is outside `cidrs`. The address is
 * `req.ip`, so behind a load balancer it is only right with TRUST_PROXY set (docs/protocols.md §2:
 * an IP allowlist behind a proxy needs a trusted X-Forwarded-For).
 */
export function allowClients(cidrs: readonly string[], what: string): RequestHandler {
  const allowed = cidrMatcher(cidrs);
  return (req, _res, next) => {
    if (allowed(req.ip)) return next();
    next(new AppError('client_not_allowed', `client address ${req.ip ?? '(unknown)'} is not allowed to post ${what}`, { status: 403 }));
  };
}
