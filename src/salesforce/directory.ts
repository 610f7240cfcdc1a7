import { CrmLookupError } from '../mapping/event-mapper.ts';

/**
 * The owner lookups Salesforce mapping needs, behind one small interface so mapping is tested
 * without Salesforce; jsforce-directory.ts is the real implementation. (Calendar attendees are
 * looked up through calendar/attendee-directory.ts, implemented in jsforce-attendee-directory.ts.)
 */
export interface SalesforceDirectory {
  /**
   * User id (18 characters) → User.Email for the ids that exist and have an email; unknown ids are
   * absent from the map. Throws SalesforceLookupError when Salesforce cannot be asked.
   */
  ownerEmails(userIds: readonly string[]): Promise<Map<string, string>>;
}

/**
 * Salesforce could not answer (network, timeout, 5xx, authentication). Always retryable: the
 * mapping job tries again later and never drops the notification.
 */
export class SalesforceLookupError extends CrmLookupError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'SalesforceLookupError';
  }
}

export function isSalesforceLookupError(error: unknown): error is SalesforceLookupError {
  return error instanceof SalesforceLookupError;
}
