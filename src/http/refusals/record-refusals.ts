import type { Request, RequestHandler } from 'express';

import { isConfigurationCode } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { notedReasons } from './refusal-notes.ts';
import type { RefusalTally } from './refusal-tally.ts';

export interface RecordRefusalsOptions {
  tally: RefusalTally;
  logger: Logger;
  /** The inbound routes' paths: a refused request to one of them is counted under its path. */
  routes: readonly string[];
  /** The Outbound Message path: a refused Salesforce request names the path it was posted to, once. */
  salesforceRoute: string;
  now?: () => number;
}

// Distinct paths logged at most: a scanner trying paths with a SOAPAction header would otherwise grow the set.
const LOGGED_PATHS_MAX = 100;
const PATH_MAX = 200;

/** Express routes ignore case and one trailing slash: so does the counting. */
const routePath = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();

/**
 * Mounted first in the app: when a reply to an inbound route finishes refused (a 4xx, a 503 for a
 * route that is not configured, or a batch with refused items), counts it by route, reason and
 * client address (req.ip, as TRUST_PROXY computes it). Never the body. Counting is in memory
 * (refusal-tally.ts); a timer writes the counts (refusal-flush.ts).
 *
 * A refused request that looks like Salesforce's (it carries the SOAPAction header Outbound
 * Messages send, docs/protocols.md §2) logs the path it was posted to once per process and path,
 * so an Outbound Message pointed at a wrong endpoint URL shows in the log, not only as 404s.
 */
export function recordRefusals(options: RecordRefusalsOptions): RequestHandler {
  const { tally, logger } = options;
  const now = options.now ?? Date.now;
  const routes = new Map(options.routes.map((path) => [routePath(path), path]));
  const salesforceRoute = routePath(options.salesforceRoute);
  const loggedPaths = new Set<string>();

  const logSalesforcePath = (req: Request, status: number, reasons: string[]) => {
    const path = (req.originalUrl.split('?')[0] ?? '').slice(0, PATH_MAX);
    if (loggedPaths.has(path) || loggedPaths.size >= LOGGED_PATHS_MAX) return;
    loggedPaths.add(path);
    logger.warn('salesforce request refused at this path (logged once per path)', {
      path,
      expected: options.salesforceRoute,
      status,
      reason: reasons[0] ?? `http_${status}`,
    });
  };

  return (req, res, next) => {
    const normalised = routePath(req.path);
    const route = routes.get(normalised);
    const fromSalesforce = normalised === salesforceRoute || req.get('soapaction') !== undefined;
    if (route === undefined && !fromSalesforce) return next();
    res.once('finish', () => {
      const reasons = notedReasons(res);
      const status = res.statusCode;
      const refused = (status >= 400 && status < 500) || (status === 503 && reasons.some(isConfigurationCode)) || (status < 400 && reasons.length > 0);
      if (!refused) return;
      if (fromSalesforce) logSalesforcePath(req, status, reasons);
      if (route === undefined) return;
      const sender = req.ip ?? 'unknown';
      const at = now();
      for (const reason of reasons.length > 0 ? reasons : [`http_${status}`]) tally.record({ route, reason, sender, at });
    });
    next();
  };
}
