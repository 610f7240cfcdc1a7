import path from 'node:path';
import { fileURLToPath } from 'node:url';

import express, { Router } from 'express';
import helmet from 'helmet';

import { AppError } from '../src/core/errors.ts';
import { ADMIN_DISABLED_MESSAGE } from './admin-auth.ts';

/** The operator console's static files: served by the bridge itself, no CDN, no data inside. */
export const CONSOLE_DIR = fileURLToPath(new URL('../console', import.meta.url));

/**
 * A stricter policy than the app-wide one: the console's own scripts and styles only (no inline
 * code or style), data calls to this origin only, no framing, no form posts, and Trusted Types so
 * a stray innerHTML with a string throws instead of parsing HTML.
 */
const consoleCsp = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
    requireTrustedTypesFor: ["'script'"],
    trustedTypes: ["'none'"],
  },
});

/**
 * `GET /admin/` and `/admin/assets/*`, served without the key: the page asks for it and sends it
 * with every call. With no key configured (`adminEnabled` false) the page would ask for a key no
 * one can have: `/admin/` answers 503 "admin API disabled: set ADMIN_API_KEYS" instead.
 */
export function adminConsoleRouter(options: { adminEnabled: boolean }): Router {
  // Strict routing: `/admin` and `/admin/` differ, and the page's relative URLs need the slash.
  const router = Router({ strict: true });
  router.get('/admin', (_req, res) => res.redirect(301, '/admin/'));
  router.get('/admin/', consoleCsp, (_req, res, next) => {
    if (!options.adminEnabled) return next(new AppError('admin_disabled', ADMIN_DISABLED_MESSAGE, { status: 503 }));
    res.set('Cache-Control', 'no-cache');
    res.sendFile('index.html', { root: CONSOLE_DIR });
  });
  router.use(
    '/admin/assets',
    consoleCsp,
    // no-cache: the browser revalidates (ETag), so a deployed console is never mixed with old modules.
    express.static(path.join(CONSOLE_DIR, 'assets'), {
      index: false,
      redirect: false,
      fallthrough: true,
      cacheControl: false,
      setHeaders: (res) => res.set('Cache-Control', 'no-cache'),
    }),
  );
  return router;
}
