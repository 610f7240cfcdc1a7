import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import type { z } from 'zod';

import type { AdminRouteSpec, InputOf } from '../src/admin/route-spec.ts';
import { AppError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import { bodyTooLarge } from '../src/http/body-too-large.ts';
import { requireContentType } from '../src/http/content-type.ts';
import { findUnstorable } from '../src/http/inbound-text.ts';
import { adminKeyFingerprint } from './admin-auth.ts';

export interface AdminInput<S extends AdminRouteSpec> {
  params: InputOf<S['params']>;
  query: InputOf<S['query']>;
  body: InputOf<S['body']>;
  keyFingerprint: string;
}

export interface AdminReply {
  /** The JSON answer (none for a 204 route). */
  body?: unknown;
  /** For a mutating route: what it changed, logged with the key's fingerprint (absent: nothing changed). */
  changed?: Record<string, unknown>;
  /** Answered instead of the body, once the change is logged: the route changed something and still failed. */
  failure?: AppError;
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

// A route with a body takes JSON in UTF-8 only, checked before the body is read.
const requireJson = requireContentType(['application/json'], 'application/json');
const readJson = express.json({ limit: '1mb' });
// No body at all is not "JSON" either: the schema would see undefined and answer with a vaguer 400.
const requireBody: RequestHandler = (req, _res, next) =>
  next(req.body === undefined ? new AppError('unsupported_media_type', 'the body is missing; send application/json', { status: 415 }) : undefined);
const jsonBody = [requireJson, readJson, requireBody];

/** Registers a spec'd route: validate path, query and body with its schemas, run, log changes, answer JSON. */
export function bindAdminRoute<S extends AdminRouteSpec>(router: Router, logger: Logger, spec: S, run: (input: AdminInput<S>) => Promise<AdminReply>): void {
  router[spec.method](spec.path, ...(spec.body === undefined ? [] : jsonBody), async (req, res) => {
    const input = {
      params: parse(spec.params, req.params, 'path'),
      query: parse(spec.query, req.query, 'query'),
      body: parse(spec.body, req.body, 'body'),
      keyFingerprint: adminKeyFingerprint(res),
    } as AdminInput<S>;
    const reply = await run(input);
    // Every change is logged with the key's fingerprint (never the key) and what it changed.
    // A mutating route that changed nothing (a dry run) leaves no change line.
    if (spec.mutating && reply.changed !== undefined)
      logger.info('admin change', { action: spec.operationId, keyFingerprint: input.keyFingerprint, ...reply.changed });
    if (reply.failure !== undefined) throw reply.failure;
    if (spec.success.status === 204) res.status(204).end();
    else res.status(spec.success.status).json(reply.body);
  });
}

const tooLarge = bodyTooLarge('1 MB');

/** body-parser's errors in the admin API's own words (the JSON error handler answers them). */
export const adminBodyErrors: ErrorRequestHandler = (error: { type?: unknown }, req, res, next) => {
  if (error.type === 'entity.parse.failed') return next(new AppError('invalid_json', 'body is not valid JSON', { status: 400 }));
  tooLarge(error, req, res, next);
};
