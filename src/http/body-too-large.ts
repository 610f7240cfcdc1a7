import type { ErrorRequestHandler } from 'express';

import { AppError } from '../core/errors.ts';

/** body-parser's error for a body over its `limit` (its `type` names the case). */
export const isBodyTooLarge = (error: unknown): boolean => (error as { type?: unknown } | undefined)?.type === 'entity.too.large';

/**
 * body-parser's own 413 says only "request entity too large"; this one says which limit: `limit`
 * is the route's wording of it (`1 MB`, `CALENDAR_MAX_BODY (1048576 bytes)`). Any other error is
 * passed on untouched, to the route's own error handler.
 */
export function bodyTooLarge(limit: string): ErrorRequestHandler {
  return (error, _req, _res, next) => {
    next(isBodyTooLarge(error) ? new AppError('body_too_large', `body is larger than ${limit}`, { status: 413 }) : error);
  };
}

/** A limit named by the setting that holds it: `SALESFORCE_MAX_BODY (2097152 bytes)`. */
export const settingLimit = (setting: string, bytes: number): string => `${setting} (${bytes} bytes)`;
