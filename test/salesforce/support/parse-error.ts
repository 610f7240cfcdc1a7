import { AppError } from '../../../src/core/errors.ts';
import { parseOutboundMessage } from '../../../src/salesforce/soap-parser.ts';

/** Runs the parser and returns the AppError it throws. */
export function parseError(xml: string): AppError {
  try {
    parseOutboundMessage(xml);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the parser to throw');
}
