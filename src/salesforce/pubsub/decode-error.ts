import { AppError } from '../../core/errors.ts';

/**
 * What Salesforce sent could not be read as a change: a schema that is not Avro, a payload that
 * does not match its schema, a header of an unexpected shape, a bitmap that names no field.
 * Upstream's fault, never the bridge's caller's, hence 502; `details` says where it was found.
 */
export type PubSubDecodeCode = 'pubsub_schema_invalid' | 'pubsub_payload_invalid' | 'pubsub_header_invalid' | 'pubsub_bitmap_invalid' | 'pubsub_value_invalid';

export class PubSubDecodeError extends AppError {
  constructor(code: PubSubDecodeCode, message: string, options: { details?: unknown; cause?: unknown } = {}) {
    super(code, message, { status: 502, ...options });
    this.name = 'PubSubDecodeError';
  }
}
