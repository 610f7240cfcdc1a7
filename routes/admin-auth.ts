import type { RequestHandler, Response } from 'express';

import { createApiKeyMatcher, presentedKey } from '../src/admin/api-keys.ts';
import { AppError } from '../src/core/errors.ts';
import { recordAuthFailure } from '../src/http/auth-failure-limit.ts';

export const ADMIN_DISABLED_MESSAGE = 'admin API disabled: set ADMIN_API_KEYS';

/**
 * Guards every `/admin` API route: no keys configured → 503; a missing or wrong key → 401 with
 * nothing else revealed, counted against ADMIN_AUTH_FAILURE_LIMIT at once (a request with the
 * right key never is). On success the key's fingerprint is kept for the change log.
 * Reusable by any router under /admin: `router.use('/admin/…', adminAuth({ keys: config.ADMIN_API_KEYS }))`.
 */
export function adminAuth(options: { keys: readonly string[] }): RequestHandler {
  const matcher = createApiKeyMatcher(options.keys);
  return (req, res, next) => {
    if (!matcher.enabled) return next(new AppError('admin_disabled', ADMIN_DISABLED_MESSAGE, { status: 503 }));
    const fingerprint = matcher.match(presentedKey({ authorization: req.get('authorization'), apiKey: req.get('x-api-key') }));
    if (fingerprint === undefined) {
      recordAuthFailure(res);
      res.set('WWW-Authenticate', 'Bearer realm="admin"');
      return next(new AppError('unauthorized', 'a valid admin API key is required', { status: 401 }));
    }
    res.locals.adminKeyFingerprint = fingerprint;
    next();
  };
}

/** The fingerprint adminAuth recorded for this request (log it with every change an admin makes). */
export function adminKeyFingerprint(res: Response): string {
  const fingerprint: unknown = res.locals.adminKeyFingerprint;
  if (typeof fingerprint !== 'string') throw new Error('adminKeyFingerprint called on a route adminAuth does not guard');
  return fingerprint;
}
