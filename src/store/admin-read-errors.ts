import { formatDuration } from '../core/durations.ts';
import { AppError } from '../core/errors.ts';

/*
 * How an admin read (the read models behind /admin and the metrics' queue gauges) fails when it is
 * stopped to keep the ack path free: always a 503 the operator can act on, never a 500. Both
 * engines answer with these, so the console and the docs know one set of codes.
 */

/** The read ran past ADMIN_READ_TIMEOUT and was stopped. */
export function adminReadTimedOut(timeoutMs: number, cause?: unknown): AppError {
  return new AppError(
    'admin_read_timeout',
    `the read took longer than ADMIN_READ_TIMEOUT (${formatDuration(timeoutMs)}) and was stopped: narrow the search or the filters (a state, a kind, a shorter text that names fewer deliveries)`,
    { status: 503, cause },
  );
}

/** The read never started: every admin read connection or thread stayed busy for ADMIN_READ_TIMEOUT. */
export function adminReadsBusy(timeoutMs: number, cause?: unknown): AppError {
  return new AppError(
    'admin_reads_busy',
    `other admin reads kept every read connection busy for ADMIN_READ_TIMEOUT (${formatDuration(timeoutMs)}): try again in a moment, or narrow the searches`,
    { status: 503, cause },
  );
}

/** The thread running the read stopped before answering (it is restarted for the next read). */
export function adminReadFailed(cause?: unknown): AppError {
  return new AppError('admin_read_failed', 'the admin read thread stopped before answering; it was restarted: try again', { status: 503, cause });
}
