import { excerpt } from './excerpt.ts';

/**
 * The one error type of the bridge. `status` is the HTTP status a route answers with;
 * `code` is a stable machine-readable name; `details` is safe to show to the caller.
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: unknown;

  constructor(code: string, message: string, options: { status?: number; details?: unknown; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? 500;
    this.details = options.details;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

// A message may quote what the sender sent (a name, a header); it is logged as the refusal's
// reason, so it is cut here, once for every route, to keep that line from growing with the input.
const MESSAGE_MAX = 500;

/** What a client may see of any error: an AppError's own words, anything else a generic 500. */
export function publicError(error: unknown): { status: number; code: string; message: string; details?: unknown } {
  if (isAppError(error)) {
    return {
      status: error.status,
      code: error.code,
      message: excerpt(error.message, MESSAGE_MAX),
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  // The router could not percent-decode a path parameter (`%ED%A0%80`, a lone `%`): the path is the
  // caller's mistake. Its message quotes the whole parameter, so it is not passed on.
  if (error instanceof URIError && (error as { status?: unknown }).status === 400) {
    return { status: 400, code: 'invalid_path', message: 'a path parameter is not valid percent-encoded UTF-8' };
  }
  // body-parser and other http-errors style errors carry a status and an `expose` flag.
  const httpError = error as { status?: unknown; expose?: unknown; message?: unknown; type?: unknown };
  if (typeof httpError?.status === 'number' && httpError.status >= 400 && httpError.status < 500 && httpError.expose === true) {
    return {
      status: httpError.status,
      code: typeof httpError.type === 'string' ? httpError.type : 'bad_request',
      message: excerpt(String(httpError.message), MESSAGE_MAX),
    };
  }
  return { status: 500, code: 'internal_error', message: 'internal error' };
}

/**
 * A 503 that is a setting missing, not a fault (`salesforce_not_configured`, `admin_disabled`…):
 * the operator's to fix, so it is logged as a warning naming the setting, never with a stack.
 */
export function isConfigurationRefusal(error: unknown): error is AppError {
  return isAppError(error) && error.status === 503 && isConfigurationCode(error.code);
}

export const isConfigurationCode = (code: string): boolean => code === 'admin_disabled' || code.endsWith('_not_configured');
