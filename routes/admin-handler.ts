import type { ErrorRequestHandler, Request, Router } from 'express';
import type { z } from 'zod';

import type { AdminRouteSpec, InputOf } from '../src/admin/route-spec.ts';
import { AppError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import { findUnstorable } from '../src/http/inbound-text.ts';
import { adminKeyFingerprint } from './admin-auth.ts';

export interface AdminInput<S extends AdminRouteSpec> {
  params: InputOf<S['params']>;
  query: InputOf<S['query']>;
  body: InputOf<S['body']>;
  keyFingerprint: string;
}

export interface AdminReply {
  body: unknown;
  /** For a mutating route: what it changed, logged with the key's fingerprint (absent: nothing changed). */
  changed?: Record<string, unknown>;
}

const issuesOf = (error: z.ZodError) => error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));

function parse<T extends z.ZodType | undefined>(schema: T, value: unknown, part: 'path' | 'query' | 'body'): InputOf<T> {
  if (schema === undefined) return undefined as InputOf<T>;
  // Before the schema, which passes unknown fields of an import through untouched: text the store
  // cannot keep must be a 400 here, not a 500 from the database (or a job that fails forever).
  const unstorable = findUnstorable(value);
  if (unstorable !== undefined) {
    const { path, message } = unstorable;
    throw new AppError(`invalid_${part}`, `invalid ${part}: ${path}: ${message}`, { status: 400, details: [{ path, message }] });
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = issuesOf(result.error);
    const first = issues[0];
    throw new AppError(`invalid_${part}`, `invalid ${part}: ${first ? `${first.path || '(root)'}: ${first.message}` : 'rejected'}`, {
      status: 400,
      details: issues,
    });
  }
  return result.data as InputOf<T>;
}

function requireJson(req: Request): void {
  // An empty body is not "JSON": the schema would see undefined and answer with a vaguer 400.
  if (!req.is('application/json')) {
    throw new AppError('unsupported_media_type', `Content-Type ${JSON.stringify(req.get('content-type') ?? '(none)')} is not accepted; send application/json`, {
      status: 415,
    });
  }
}

/** Registers a spec'd route: validate path, query and body with its schemas, run, log changes, answer JSON. */
export function bindAdminRoute<S extends AdminRouteSpec>(router: Router, logger: Logger, spec: S, run: (input: AdminInput<S>) => Promise<AdminReply>): void {
  router[spec.method](spec.path, async (req, res) => {
    if (spec.body !== undefined) requireJson(req);
    const input = {
      params: parse(spec.params, req.params, 'path'),
      query: parse(spec.query, req.query, 'query'),
      body: parse(spec.body, req.body, 'body'),
      keyFingerprint: adminKeyFingerprint(res),
    } as AdminInput<S>;
    const reply = await run(input);
    // Issue 5: every change is logged with the key's fingerprint (never the key) and what it changed.
    // A mutating route that changed nothing (a dry run) leaves no change line.
    if (spec.mutating && reply.changed !== undefined)
      logger.info('admin change', { action: spec.operationId, keyFingerprint: input.keyFingerprint, ...reply.changed });
    res.status(spec.success.status).json(reply.body);
  });
}

/** body-parser's errors in the admin API's own words (the JSON error handler answers them). */
export const adminBodyErrors: ErrorRequestHandler = (error: { type?: unknown }, _req, _res, next) => {
  if (error.type === 'entity.parse.failed') return next(new AppError('invalid_json', 'body is not valid JSON', { status: 400 }));
  if (error.type === 'entity.too.large') return next(new AppError('body_too_large', 'body is larger than 1 MB', { status: 413 }));
  next(error);
};
