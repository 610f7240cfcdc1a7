import path from 'node:path';
import { fileURLToPath } from 'node:url';

import express, { Router } from 'express';
import helmet from 'helmet';

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

/** `GET /admin/` and `/admin/assets/*`, served without the key: the page asks for it and sends it with every call. */
export function adminConsoleRouter(): Router {
  // Strict routing: `/admin` and `/admin/` differ, and the page's relative URLs need the slash.
  const router = Router({ strict: true });
  router.get('/admin', (_req, res) => res.redirect(301, '/admin/'));
  router.get('/admin/', consoleCsp, (_req, res) => {
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
