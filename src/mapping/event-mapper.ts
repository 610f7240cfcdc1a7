import type { Logger } from '../logger.ts';
import type { InboundEvent } from '../store/types.ts';
import type { MappingOutcome } from './mapping-outcome.ts';

/**
 * Maps one stored inbound event of one source (`salesforce`; the calendar issue adds its own).
 * Throws SalesforceLookupError when a CRM lookup fails (the job retries) and UnmappableEventError
 * when the stored event can never be mapped (the job ends dead, the event `failed`).
 */
export type EventMapper = (event: InboundEvent, context: { logger: Logger; signal: AbortSignal }) => Promise<MappingOutcome>;

export class UnmappableEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnmappableEventError';
  }
}
