import type { Logger } from '../core/logger.ts';
import type { MeetingToMatch } from '../matching/match-meeting.ts';
import type { InboundEvent } from '../store/types.ts';
import type { MappingOutcome } from './mapping-outcome.ts';

/**
 * Maps one stored inbound event of one source (`salesforce`, `google`, `calendar`). Throws a
 * CrmLookupError when a CRM lookup fails (the job retries) and UnmappableEventError when the
 * stored event can never be mapped (the job ends dead, the event `failed`).
 */
export type EventMapper = (event: InboundEvent, context: MapperContext) => Promise<MappingOutcome>;

export interface MapperContext {
  logger: Logger;
  signal: AbortSignal;
  /** An operator's pin for the meeting this event is a state of: it wins over every matching rule. */
  pin?: MeetingToMatch['pin'];
}

export class UnmappableEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnmappableEventError';
  }
}

/**
 * A service the mapping reads from could not answer a lookup (network, timeout, 5xx,
 * authentication). Always retryable: the mapping job tries again on the worker's schedule and
 * never drops the event. `errorClass` names the service in the attempt log.
 */
export class LookupError extends Error {
  readonly retryable = true;
  readonly errorClass: string;
  /** The service's own Retry-After (a 429 or 503), as a delay: the retry waits at least this long. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options: { cause?: unknown; errorClass?: string; retryAfterMs?: number } = {}) {
    super(message, options);
    this.name = 'LookupError';
    this.errorClass = options.errorClass ?? 'lookup';
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The CRM could not answer a lookup. Each CRM integration throws its own subclass. */
export class CrmLookupError extends LookupError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, errorClass: 'salesforce_lookup' });
    this.name = 'CrmLookupError';
  }
}
