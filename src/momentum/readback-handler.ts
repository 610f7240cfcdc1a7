import type { Logger } from '../core/logger.ts';
import type { JobHandler } from '../jobs/types.ts';
import type { MomentumReadMetrics } from '../metrics/bridge-metrics.ts';
import type { DeliveredMeeting, DeliveredMeetings, NewJob, ReadbackResult } from '../store/types.ts';
import { afterListing } from './after-listing.ts';
import type { MomentumClient } from './client.ts';
import { listingProblem, type PacingDeps, toHandlerResult } from './delivery-outcome.ts';
import { heldOf, holdsIds } from './held-ids.ts';
import { type ListedMeeting, MAX_LISTING_PAGES, MAX_PAGE_SIZE } from './meeting-list.ts';
import { findNamed, namedInListing } from './named-meeting.ts';
import { READBACK_LISTING_SPAN_MS, READBACK_WINDOW_MS, readbackJob, readbackKind } from './readback-job.ts';

export interface ReadbackHandlerDeps extends PacingDeps {
  client: MomentumClient;
  store: { delivered: DeliveredMeetings };
  logger: Logger;
  metrics?: Pick<MomentumReadMetrics, 'readbackOutcome'>;
  /** MOMENTUM_READBACK as resolved: a job left from when it was on reads nothing while it is off. */
  enabled: boolean;
}

// One window's deliveries compared per page; more wait for the next walk of the window.
const MAX_CHECKS_PER_PAGE = 500;

/** A delivery found in the listing: `confirmed` when Momentum holds every id the remap carried, else `not_applied`. */
export function compareHeld(row: DeliveredMeeting, listed: ListedMeeting): ReadbackResult {
  return { jobId: row.jobId, outcome: holdsIds(listed, row.sent) ? 'confirmed' : 'not_applied', held: heldOf(listed) };
}

/**
 * `readback` jobs: one page of a window's listing compared with the window's deliveries that are
 * due. A delivery found is `confirmed` or `not_applied`; one no page lists is `not_found` once
 * the walk has read every page. The next page is read only while some delivery is still missing,
 * and a delivery that fell due during the walk gets a walk of its own.
 */
export function createReadbackHandler(deps: ReadbackHandlerDeps): JobHandler {
  const { delivered } = deps.store;
  return readbackKind.handler(async ({ windowStart, pageNumber, walkFrom }, job, context) => {
    const now = context.now();
    const from = walkFrom ?? now;
    await delivered.supersedeOlder(windowStart, now);
    const due = await delivered.dueForReadback(windowStart, from, MAX_CHECKS_PER_PAGE);
    if (due.length === 0 || !deps.enabled) {
      const reason = deps.enabled ? 'nothing due in this window' : 'read-back is off (MOMENTUM_READBACK)';
      return { kind: 'final', state: 'skipped', reason, ...(deps.enabled ? await laterWalk(windowStart) : {}) };
    }

    const query = { from: windowStart, to: windowStart + READBACK_WINDOW_MS + READBACK_LISTING_SPAN_MS, pageNumber, pageSize: MAX_PAGE_SIZE };
    const answer = await deps.client.listMeetings(query, { signal: context.signal });
    if (answer.page === undefined) {
      const handled = await toHandlerResult(answer.call, deps, context.now());
      return answer.problem === undefined ? handled : listingProblem(handled, answer.problem, context.logger);
    }
    const page = answer.page;
    return afterListing(async () => {
      const found: ReadbackResult[] = [];
      const missing: DeliveredMeeting[] = [];
      for (const row of due) {
        const listed = findNamed(row, page.meetings, namedInListing);
        if (listed === undefined) missing.push(row);
        else found.push(compareHeld(row, listed));
      }
      const lastPage = pageNumber >= page.pageCount || pageNumber >= MAX_LISTING_PAGES;
      const notFound: ReadbackResult[] = lastPage ? missing.map((row) => ({ jobId: row.jobId, outcome: 'not_found' })) : [];
      await delivered.settleReadbacks([...found, ...notFound], now);
      report([...found, ...notFound], due, job.id);

      const next =
        !lastPage && missing.length > 0
          ? { enqueue: [readbackJob(windowStart, now, { pageNumber: pageNumber + 1, walkFrom: from })] }
          : await laterWalk(windowStart);
      const handled = await toHandlerResult(answer.call, deps, context.now());
      const counts = { listed: page.meetings.length, unreadable: page.unreadable, pageCount: page.pageCount };
      const outcomes = { confirmed: count(found, 'confirmed'), notApplied: count(found, 'not_applied'), notFound: notFound.length };
      return { ...handled, result: { window: new Date(windowStart).toISOString(), pageNumber, ...counts, ...outcomes }, ...next };
    });
  });

  /** The window's next walk, when a delivery of it is still waiting (due later, or past this walk's batch). */
  async function laterWalk(windowStart: number): Promise<{ enqueue?: NewJob[] }> {
    const dueAt = await delivered.nextReadbackDue(windowStart);
    return dueAt === undefined ? {} : { enqueue: [readbackJob(windowStart, dueAt)] };
  }

  function report(results: readonly ReadbackResult[], rows: readonly DeliveredMeeting[], readbackJobId: number): void {
    for (const outcome of ['confirmed', 'not_applied', 'not_found'] as const) deps.metrics?.readbackOutcome(outcome, count(results, outcome));
    for (const result of results.filter((item) => item.outcome !== 'confirmed')) {
      const row = rows.find((item) => item.jobId === result.jobId);
      const meta = { deliveryId: result.jobId, readbackJobId, meeting: row?.meetingKey, sent: row?.sent, held: result.held };
      // A remap Momentum accepted but did not apply is what an operator must hear of: a warning, with ids only.
      if (result.outcome === 'not_applied') deps.logger.warn('remap accepted but not applied', meta);
      else deps.logger.info('remapped meeting not found in the listing', meta);
    }
  }
}

const count = (results: readonly ReadbackResult[], outcome: ReadbackResult['outcome']): number => results.filter((result) => result.outcome === outcome).length;
