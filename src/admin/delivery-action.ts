import { z } from 'zod';

import type { Attempt, Job } from '../store/types.ts';

/**
 * What an operator does about a dead delivery, by the class of its last attempt's failure
 * (docs/operations.md, "A dead delivery"). Derived here only, so the API and the console say the
 * same thing for the same failure.
 */

export const ACTION_CLASSES = ['not_in_momentum', 'api_key', 'request_body', 'retries_exhausted', 'other'] as const;
export const ACTION_BUTTONS = ['replay', 'import', 'none'] as const;

export const deliveryActionSchema = z.object({
  class: z.enum(ACTION_CLASSES).meta({
    description:
      'not_in_momentum (404), api_key (401, 403), request_body (400, 422, or refused before sending), retries_exhausted (429, 5xx, network, timeout through every attempt), other',
  }),
  status: z.int().nullable().meta({ description: "The last attempt's HTTP status; null when no answer came (or no attempt was made)" }),
  advice: z.string().meta({ description: 'What to do, in one sentence' }),
  button: z
    .enum(ACTION_BUTTONS)
    .meta({ description: 'The one action that helps: replay it, import the meeting (POST /admin/meetings/import), or none (fix first)' }),
});

export type DeliveryAction = z.infer<typeof deliveryActionSchema>;

/** Errors that asking again may cure: the worker retried them until its attempts ran out. */
const TRANSIENT_CLASSES = new Set(['network', 'timeout', 'http_5xx']);

function classOf(attempt: Attempt | undefined): DeliveryAction['class'] {
  const status = attempt?.status;
  if (status === 404) return 'not_in_momentum';
  if (status === 401 || status === 403) return 'api_key';
  if (status === 400 || status === 422 || attempt?.errorClass === 'invalid_request') return 'request_body';
  if (status === 429 || (status !== undefined && status >= 500) || TRANSIENT_CLASSES.has(attempt?.errorClass ?? '')) return 'retries_exhausted';
  return 'other';
}

const ADVICE: Record<DeliveryAction['class'], (job: Job) => Pick<DeliveryAction, 'advice' | 'button'>> = {
  not_in_momentum: (job) =>
    job.kind === 'remap'
      ? { advice: 'Momentum does not know this meeting yet: replay it later, once Momentum has it, or import the meeting.', button: 'import' }
      : { advice: 'Momentum answered 404: replay it later.', button: 'replay' },
  api_key: () => ({ advice: 'Momentum refused the API key: check MOMENTUM_API_KEY and its permissions, then replay.', button: 'none' }),
  request_body: () => ({
    advice: 'Momentum refused the request body: check the mapping (POST /admin/mapping/preview), fix the rules or the record, then reprocess the event.',
    button: 'none',
  }),
  retries_exhausted: () => ({ advice: 'Momentum was unavailable or rate-limited through every attempt: replay it.', button: 'replay' }),
  other: (job) => ({ advice: `Read the last error${job.lastError === null ? '' : ` (${job.lastError})`} before replaying.`, button: 'none' }),
};

/** The action for a dead delivery from its attempts (oldest first); null for any other state. */
export function deliveryAction(job: Job, attempts: readonly Attempt[]): DeliveryAction | null {
  if (job.state !== 'dead') return null;
  const last = attempts.at(-1);
  const actionClass = classOf(last);
  return { class: actionClass, status: last?.status ?? null, ...ADVICE[actionClass](job) };
}
