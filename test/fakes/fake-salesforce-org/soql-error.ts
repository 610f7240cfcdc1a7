/**
 * A query Salesforce refuses: HTTP 400 with `[{ message, errorCode }]`. The fake refuses what it
 * cannot evaluate the same way, so an unsupported query fails loudly instead of answering nothing.
 */
export type SoqlErrorCode = 'MALFORMED_QUERY' | 'INVALID_FIELD' | 'INVALID_TYPE' | 'INVALID_QUERY_FILTER_OPERATOR';

export class SoqlError extends Error {
  readonly errorCode: SoqlErrorCode;

  constructor(errorCode: SoqlErrorCode, message: string) {
    super(message);
    this.name = 'SoqlError';
    this.errorCode = errorCode;
  }
}

/** A construct the fake does not evaluate: refused as Salesforce refuses a query it cannot parse. */
export const unsupported = (what: string) => new SoqlError('MALFORMED_QUERY', `${what} is not supported by the fake Salesforce org`);
