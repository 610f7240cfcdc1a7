import { CrmLookupError } from '../mapping/event-mapper.ts';
/**
 * CRM lookups the mapping needs from Salesforce, behind one small interface (style.md: every
 * outside service sits behind an interface; jsforce-directory.ts is the real implementation).
 * The calendar mapper will add attendee lookups here (email → Contact/Lead/Account/Opportunity).
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
