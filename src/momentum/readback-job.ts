import { z } from 'zod';

import { defineJobKind } from '../jobs/job-kind.ts';
import { JOB_PRIORITY, type NewDeliveredMeeting, type NewJob } from '../store/types.ts';
import { MOMENTUM_RATE_KEY } from './delivery-jobs.ts';
import { namedInImport, namedInRemap, type NamedMeeting } from './named-meeting.ts';
import type { ImportRequest, RemapRequest } from './schemas.ts';

/**
 * Read-back (docs/operations.md, read-back): a remap Momentum accepted is read back later from its
 * meeting listing, in batches. Deliveries are grouped into windows of one hour of meeting start;
 * one `readback` job reads one page of a window's listing, so each job is one call from Momentum's
 * budget, taken like a remap's (same rate key) in the lowest priority class: read-backs use only
 * the slots live changes leave free. The window's jobs share one coalescing key, so the remaps of
 * a window read back together once the newest is due.
 */

export const READBACK_WINDOW_MS = 60 * 60_000;
/**
 * The listing's `to` bounds a meeting's end, not its start (docs/protocols.md §1): a window is
 * listed up to this long past its last start, so a meeting of up to three hours that starts in it
 * is listed.
 */
export const READBACK_LISTING_SPAN_MS = 3 * 60 * 60_000;

export const readbackWindowOf = (startsAt: number): number => Math.floor(startsAt / READBACK_WINDOW_MS) * READBACK_WINDOW_MS;

export const readbackPayloadSchema = z.strictObject({
  /** The window's first instant (epoch ms, a whole hour). */
  windowStart: z.int(),
  pageNumber: z.int().min(1),
  /** When the walk of the window's pages began (page 1's run): only deliveries due by then are missing when no page lists them. */
  walkFrom: z.int().optional(),
});

export const readbackKey = (windowStart: number): string => `readback:${new Date(windowStart).toISOString()}`;

export const readbackKind = defineJobKind('readback', readbackPayloadSchema, {
  fieldsOf: (payload) => ({ coalesceKey: readbackKey(payload.windowStart), rateKey: MOMENTUM_RATE_KEY, priority: JOB_PRIORITY.bulk }),
});

/** The read-back of a window's page, at `runAt`. */
export function readbackJob(windowStart: number, runAt: number, page: { pageNumber: number; walkFrom?: number } = { pageNumber: 1 }): NewJob {
  return readbackKind.job({ windowStart, ...page }, { runAt });
}

const sentOf = (records: RemapRequest['salesforceRecords']) => ({
  ...(records.opportunityId ? { opportunityId: records.opportunityId } : {}),
  ...(records.accountId ? { accountId: records.accountId } : {}),
  ...(records.leadId ? { leadId: records.leadId } : {}),
});

function delivered(kind: string, meetingKey: string, named: NamedMeeting, sent: NewDeliveredMeeting['sent']): NewDeliveredMeeting {
  return { kind, meetingKey, ...named, sent };
}

/**
 * The row a remap Momentum accepted leaves, read back `delayMs` later when read-back is on. A
 * remap naming no start (only Momentum's id, or only a source) has no window: it is not read back.
 */
export function deliveredRemap(
  request: RemapRequest,
  meetingKey: string,
  now: number,
  delayMs: number | undefined,
): { row: NewDeliveredMeeting; jobs: NewJob[] } {
  const row = delivered('remap', meetingKey, namedInRemap(request), sentOf(request.salesforceRecords));
  if (delayMs === undefined || row.startsAt === undefined) return { row, jobs: [] };
  const windowStart = readbackWindowOf(row.startsAt);
  const dueAt = now + delayMs;
  return { row: { ...row, readback: { windowStart, dueAt } }, jobs: [readbackJob(windowStart, dueAt)] };
}

/** The row an import Momentum accepted leaves: a meeting the bridge made, never read back. */
export function deliveredImport(request: ImportRequest, meetingKey: string): NewDeliveredMeeting {
  const { meeting } = request;
  return delivered('import', meetingKey, namedInImport(request), {
    ...(meeting.salesforceOpportunityId ? { opportunityId: meeting.salesforceOpportunityId } : {}),
    ...(meeting.salesforceAccountId ? { accountId: meeting.salesforceAccountId } : {}),
  });
}
