import type { ErrorRequestHandler, RequestHandler } from 'express';

import { AppError, isConfigurationRefusal, publicError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { noteRefusalCode } from './refusals/refusal-notes.ts';

export function jsonNotFound(): RequestHandler {
  return (req, _res, next) => next(new AppError('not_found', `no route for ${req.method} ${req.path}`, { status: 404 }));
}

/** The one JSON error handler: logs the error, answers `{error:{code,message,details?}}`, never a stack. */
export function jsonErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error);
    const reply = publicError(error);
    noteRefusalCode(res, reply.code);
    // A setting not made is the operator's to fix, not a fault: a warning naming it, no stack.
    if (isConfigurationRefusal(error)) logger.warn('request refused: not configured', { code: reply.code, status: reply.status, reason: reply.message });
    else if (reply.status >= 500) logger.error('request failed', { error, code: reply.code });
    else logger.warn('request refused', { code: reply.code, status: reply.status, reason: reply.message });
    res.status(reply.status).json({ error: { code: reply.code, message: reply.message, ...(reply.details === undefined ? {} : { details: reply.details }) } });
  };
}
