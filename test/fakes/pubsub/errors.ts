import * as grpc from '@grpc/grpc-js';

/**
 * The failures the fake answers with, shaped as Salesforce's: a gRPC status, details ending in the
 * call's rpcId, and the `error-code` trailer clients branch on.
 */

export const ERROR_CODES = {
  replayIdCorrupted: 'sfdc.platform.eventbus.grpc.subscription.fetch.replayid.corrupted',
  replayIdValidationFailed: 'sfdc.platform.eventbus.grpc.subscription.fetch.replayid.validation.failed',
  serviceUnavailable: 'sfdc.platform.eventbus.grpc.service.unavailable',
  authError: 'sfdc.platform.eventbus.grpc.service.auth.error',
} as const;

/** A gRPC status with optional `error-code` trailer, for a scripted failure of any other kind. */
export interface CustomFailure {
  code: grpc.status;
  errorCode?: string;
  details?: string;
}

/**
 * What a scripted subscribe does instead of streaming: fail with one of Salesforce's errors, `end`
 * the stream cleanly (status OK), or fall `silent` (stay open, send nothing, never close).
 */
export type SubscribeFailure = 'replayid-corrupted' | 'replayid-validation-failed' | 'unavailable' | 'internal' | 'end' | 'silent' | CustomFailure;

export type StatusError = Partial<grpc.StatusObject> & { code: grpc.status; details: string };

export function statusError(code: grpc.status, details: string, rpcId: string, errorCode?: string): StatusError {
  const metadata = new grpc.Metadata();
  if (errorCode !== undefined) metadata.set('error-code', errorCode);
  return { code, details: `${details} rpcId: ${rpcId}`, metadata };
}

export const authenticationError = (rpcId: string) =>
  statusError(
    grpc.status.UNAUTHENTICATED,
    'An authentication exception occurred. Provide valid authentication via metadata headers.',
    rpcId,
    ERROR_CODES.authError,
  );

export const corruptedReplayId = (rpcId: string) =>
  statusError(
    grpc.status.INVALID_ARGUMENT,
    'The Replay ID validation failed. The Replay ID is either corrupted or outside the retention window.',
    rpcId,
    ERROR_CODES.replayIdCorrupted,
  );

export const replayIdValidationFailed = (rpcId: string) =>
  statusError(
    grpc.status.INVALID_ARGUMENT,
    'The Replay ID validation failed. Ensure that the Replay ID is valid.',
    rpcId,
    ERROR_CODES.replayIdValidationFailed,
  );

/** The status a failure ends a stream with; undefined for `end` and `silent`, which send none. */
export function failureStatus(failure: SubscribeFailure, rpcId: string): StatusError | undefined {
  if (typeof failure === 'object') return statusError(failure.code, failure.details ?? 'Scripted failure.', rpcId, failure.errorCode);
  switch (failure) {
    case 'replayid-corrupted':
      return corruptedReplayId(rpcId);
    case 'replayid-validation-failed':
      return replayIdValidationFailed(rpcId);
    case 'unavailable':
      return statusError(grpc.status.UNAVAILABLE, 'The service is unavailable. Try again later.', rpcId, ERROR_CODES.serviceUnavailable);
    case 'internal':
      return statusError(grpc.status.INTERNAL, 'An internal error occurred.', rpcId);
    default:
      return undefined;
  }
}
