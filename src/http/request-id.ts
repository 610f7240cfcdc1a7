import { randomUUID } from 'node:crypto';

import type { RequestHandler } from 'express';

import { requestContext } from '../core/logger.ts';

// A caller's id is kept only when it is short and printable, so it cannot forge log lines.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes X-Request-Id when sane, else makes one; echoes it and scopes every log line to it. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const offered = req.get('x-request-id');
    const id = offered && SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    requestContext.run({ requestId: id }, next);
  };
}
