import type { RequestHandler } from 'express';

/**
 * `Cache-Control: no-store` on every answer of the routes behind it, errors included. Admin
 * answers carry payloads, delivery history and who changed what: no browser or proxy may keep a
 * copy that outlives the key that fetched it. Set before anything else runs, so a 401, 429 or
 * 404 answered by an earlier guard carries it too.
 */
export function noStore(): RequestHandler {
  return (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  };
}
