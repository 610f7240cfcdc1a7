import type { z } from 'zod';

import { describeIssues } from '../core/describe-issues.ts';
import type { Job, NewJob } from '../store/types.ts';
import type { HandlerResult, JobContext, JobHandler } from './types.ts';

/** What a producer may set on a job besides its kind and payload. */
export type JobFields = Omit<NewJob, 'kind' | 'payload'>;

/** A handler that receives its kind's payload already parsed and typed. */
export type KindHandler<P> = (payload: P, job: Job, context: JobContext) => Promise<HandlerResult>;

/**
 * One entry of the job catalogue: a kind's name, the schema of its payload, the one way to make a
 * job of it and the one way to handle it. A producer handing the wrong payload to `job` is a type
 * error; a stored payload that no longer fits the schema (written by an older or newer version)
 * ends the job `dead` with the schema's issues instead of reaching the handler.
 */
export interface JobKind<S extends z.ZodType> {
  readonly name: string;
  readonly schema: S;
  job(payload: z.input<S>, fields?: JobFields): NewJob;
  handler(run: KindHandler<z.output<S>>): JobHandler;
}

export interface JobKindOptions<S extends z.ZodType> {
  /** Fields every job of the kind gets from its payload (a coalescing key, a budget). */
  fieldsOf?: (payload: z.input<S>) => JobFields;
  /** The result for a stored payload that fails the schema; `dead` with the issues by default. */
  invalid?: (issues: string, job: Job, context: JobContext) => HandlerResult;
}

export function defineJobKind<S extends z.ZodType>(name: string, schema: S, options: JobKindOptions<S> = {}): JobKind<S> {
  const invalid = options.invalid ?? ((issues: string): HandlerResult => ({ kind: 'final', state: 'dead', reason: `invalid ${name} payload: ${issues}` }));
  return {
    name,
    schema,
    job: (payload, fields = {}) => ({ kind: name, payload, ...options.fieldsOf?.(payload), ...fields }),
    handler: (run) => async (job, context) => {
      const parsed = schema.safeParse(job.payload);
      return parsed.success ? run(parsed.data, job, context) : invalid(describeIssues(parsed.error), job, context);
    },
  };
}
