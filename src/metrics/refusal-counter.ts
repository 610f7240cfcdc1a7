import type { ErrorRequestHandler } from 'express';

import { publicError } from '../core/errors.ts';
import type { InboundMetrics } from './bridge-metrics.ts';

/** Counts a refused inbound request by its error code, then passes the error on to be answered. */
export function countRefusals(source: string, metrics: InboundMetrics | undefined): ErrorRequestHandler {
  return (error, _req, _res, next) => {
    metrics?.inboundMessage(source, 'refused', publicError(error).code);
    next(error);
  };
}
