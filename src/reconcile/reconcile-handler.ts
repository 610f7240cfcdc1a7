import type { Logger } from '../core/logger.ts';
import type { JobHandler } from '../jobs/types.ts';
import { mapEventKind } from '../mapping/map-event-job.ts';
import type { MomentumReadMetrics } from '../metrics/bridge-metrics.ts';
import { afterListing } from '../momentum/after-listing.ts';
import type { MomentumClient } from '../momentum/client.ts';
import { listingProblem, type PacingDeps, toHandlerResult } from '../momentum/delivery-outcome.ts';
import { type ListedMeeting, MAX_LISTING_PAGES, MAX_PAGE_SIZE } from '../momentum/meeting-list.ts';
import { fitsNamed, namedInListing } from '../momentum/named-meeting.ts';
import { boundKey } from '../store/store-values.ts';
import { type DeliveredMeetings, type InboundEvent, type Inbox, JOB_PRIORITY, type NewJob } from '../store/types.ts';
import { reconcileJob, reconcileKind } from './reconcile-job.ts';

/** Inbound events of reconciled meetings: what Momentum listed and the bridge never delivered for. */
export const MOMENTUM_SOURCE = 'momentum';

export interface ReconcileHandlerDeps extends PacingDeps {
  client: MomentumClient;
  store: Pick<Inbox, 'ingest'> & { delivered: Pick<DeliveredMeetings, 'namedAmong'> };
  logger: Logger;
  metrics?: Pick<MomentumReadMetrics, 'reconcileMeetings'>;
}

/** The meeting's serial key: its match records and an operator's pin are found by it (`momentum:<id>`). */
export const momentumMeetingKey = (meetingId: string): string => boundKey(`${MOMENTUM_SOURCE}:${meetingId}`);

/** Its mapping, in the lowest class: reconciling never delays a live change. */
const matchJob = (event: Pick<InboundEvent, 'id' | 'parsedPayload'>): NewJob[] => [
  mapEventKind.job(
    { eventId: event.id },
    { eventId: event.id, serialKey: momentumMeetingKey((event.parsedPayload as ListedMeeting).id), priority: JOB_PRIORITY.bulk },
  ),
];

/**
 * A meeting is stored again only when what Momentum holds for it changed: listed as before, it was
 * matched already and the answer would be the same.
 */
const dedupeKeyOf = (meeting: ListedMeeting): string =>
  boundKey(`${MOMENTUM_SOURCE}:${meeting.id}:${meeting.salesforceOpportunityId ?? '-'}:${meeting.salesforceAccountId ?? '-'}`);

/**
 * `reconcile` jobs: one page of Momentum's meetings of the window. A meeting the bridge delivered
 * for (delivered_meetings names it by Momentum's id, or by its start with its title and host) was
 * seen, and is left alone; every other one is stored in the inbox as a `momentum` event with its
 * own mapping job, which matches it (momentum-meeting-mapper.ts) and keeps the match record. The
 * next page follows while there is one.
 */
export function createReconcileHandler(deps: ReconcileHandlerDeps): JobHandler {
  return reconcileKind.handler(async (page, _job, context) => {
    const answer = await deps.client.listMeetings(
      { from: page.from, to: page.to, pageNumber: page.pageNumber, pageSize: MAX_PAGE_SIZE },
      { signal: context.signal },
    );
    if (answer.page === undefined) {
      const handled = await toHandlerResult(answer.call, deps, context.now());
      return answer.problem === undefined ? handled : listingProblem(handled, answer.problem, context.logger);
    }
    const listed = answer.page;
    return afterListing(async () => {
      const { meetings, pageCount } = listed;
      const unseen = await unseenOf(meetings);
      const stored =
        unseen.length === 0
          ? { created: [], duplicates: [] }
          : await deps.store.ingest(
              {
                source: MOMENTUM_SOURCE,
                senderId: 'reconcile',
                // What the bridge read of the page: the meetings it stores, as the listing gave them.
                rawPayload: JSON.stringify({
                  from: new Date(page.from).toISOString(),
                  to: new Date(page.to).toISOString(),
                  pageNumber: page.pageNumber,
                  meetings: unseen,
                }),
                events: unseen.map((meeting) => ({ dedupeKey: dedupeKeyOf(meeting), parsedPayload: meeting })),
              },
              matchJob,
            );
      const counts = { seen: meetings.length - unseen.length, matched: stored.created.length, unchanged: stored.duplicates.length };
      for (const [outcome, count] of Object.entries(counts)) deps.metrics?.reconcileMeetings(outcome, count);
      context.logger.info('reconcile page read', {
        pageNumber: page.pageNumber,
        pageCount,
        listed: meetings.length,
        unreadable: listed.unreadable,
        ...counts,
      });
      const handled = await toHandlerResult(answer.call, deps, context.now());
      if (page.pageNumber < pageCount && page.pageNumber >= MAX_LISTING_PAGES)
        context.logger.warn('reconcile walk stopped at its page bound', { pageNumber: page.pageNumber, pageCount, bound: MAX_LISTING_PAGES });
      const more = page.pageNumber < pageCount && page.pageNumber < MAX_LISTING_PAGES;
      const next = more ? { enqueue: [reconcileJob({ ...page, pageNumber: page.pageNumber + 1 })] } : {};
      return { ...handled, result: { pageNumber: page.pageNumber, pageCount, listed: meetings.length, ...counts }, ...next };
    });
  });

  /** The listed meetings no delivery of the bridge names (conservatively: a delivery that could name two leaves both alone). */
  async function unseenOf(meetings: readonly ListedMeeting[]): Promise<ListedMeeting[]> {
    const named = meetings.map(namedInListing);
    const starts = named.flatMap((meeting) => (meeting.startsAt === undefined ? [] : [meeting.startsAt]));
    if (meetings.length === 0) return [];
    const from = starts.length === 0 ? 0 : Math.min(...starts);
    const to = starts.length === 0 ? -1 : Math.max(...starts);
    const rows = await deps.store.delivered.namedAmong(
      from,
      to,
      meetings.map((meeting) => meeting.id),
    );
    return meetings.filter((_meeting, index) => !rows.some((row) => fitsNamed(row, named[index] ?? {})));
  }
}
