import type { Logger } from '../core/logger.ts';
import type { HandlerResult, JobHandler } from '../jobs/types.ts';
import type { MatchRecord, MatchRecords } from '../matching/types.ts';
import { remapJob } from '../momentum/delivery-jobs.ts';
import type { Inbox, Matches } from '../store/types.ts';
import { JOB_PRIORITY } from '../store/types.ts';
import { type EventMapper, LookupError } from './event-mapper.ts';
import { storedMatch } from './map-event-handler.ts';
import { rematchKind } from './rematch-job.ts';

/**
 * The `rematch` job (docs/calendars.md, re-matching): the meeting's newest mapped event matched
 * again with what the CRM says now. A pinned meeting is never touched. A meeting whose match was
 * not final (no opportunity, an Account or a Lead alone, a tie) takes whatever better answer comes;
 * one that had an opportunity moves only when another opportunity now outranks it outright, never
 * on a tie. Only a changed answer is sent, as a remap of the lowest priority, with a match record
 * saying why; an unchanged one sends and stores nothing.
 */

export interface RematchHandlerDeps {
  store: Pick<Inbox, 'getEvent'> & Matches;
  /** The mappers of the sources whose meetings are matched (calendar events). */
  mappers: Readonly<Record<string, EventMapper>>;
  logger: Logger;
}

const skip = (reason: string): HandlerResult => ({ kind: 'final', state: 'skipped', reason });
const same = (a: MatchRecords, b: MatchRecords) => a.opportunityId === b.opportunityId && a.accountId === b.accountId && a.leadId === b.leadId;

/** Why the new answer may not replace the old one, or undefined when it may. */
function keptBecause(previous: MatchRecord, next: MatchRecord): string | undefined {
  if (!next.records.opportunityId && !next.records.accountId && !next.records.leadId) return 'the new answer names no record; the old one stays';
  if (same(previous.records, next.records)) return 'unchanged';
  if (previous.records.opportunityId === undefined) return undefined;
  if (next.outcome === 'ambiguous') return `the new candidates tie; ${previous.records.opportunityId} stays`;
  if (next.outcome !== 'matched' || next.records.opportunityId === undefined) return `no opportunity outranks ${previous.records.opportunityId}`;
  return undefined;
}

export function createRematchHandler(deps: RematchHandlerDeps): JobHandler {
  return rematchKind.handler(async ({ meetingKey, cause }, _job, context) => {
    if ((await deps.store.matches.getPin(meetingKey)) !== undefined) return skip('pinned: an operator decided this meeting');
    const [previous] = await deps.store.matches.meetingMatches(meetingKey, 1);
    if (previous === undefined) return skip('no match record for this meeting');
    const event = await deps.store.getEvent(previous.eventId);
    const mapper = event === undefined || !Object.hasOwn(deps.mappers, event.source) ? undefined : deps.mappers[event.source];
    if (event === undefined || mapper === undefined) return skip(`meetings from ${event?.source ?? 'a missing event'} are not re-matched`);

    const startedAt = context.now();
    let outcome;
    try {
      outcome = await mapper(event, { logger: context.logger, signal: context.signal });
    } catch (error) {
      if (!(error instanceof LookupError)) throw error;
      return { kind: 'retryable', error: error.message, attempt: { startedAt, durationMs: context.now() - startedAt, errorClass: error.errorClass } };
    }
    if (outcome.kind !== 'remap' || outcome.match === undefined) return skip(`not re-sent: the mapping now gives ${outcome.kind}`);
    const kept = keptBecause(previous.record as MatchRecord, outcome.match);
    // Ended `skipped` when nothing moved, `succeeded` when a re-match was sent: the counts and the activity chart tell them apart.
    if (kept !== undefined) return skip(kept);

    const match: MatchRecord = { ...outcome.match, summary: `Re-matched (${cause}): ${outcome.match.summary}` };
    context.logger.info('meeting re-matched', { meetingKey, cause, before: (previous.record as MatchRecord).records, after: match.records });
    return {
      kind: 'succeeded',
      result: { meetingKey, changed: true, records: match.records },
      enqueue: [
        remapJob(outcome.request, outcome.flags, {
          eventId: event.id,
          priority: JOB_PRIORITY.bulk,
          // On the meeting's own coalescing key, as its live remaps: a re-match supersedes or waits for them, never races them.
          ...(previous.meetingId === null ? {} : { meetingId: previous.meetingId }),
          ...(outcome.sourceVersion === undefined ? {} : { sourceVersion: outcome.sourceVersion }),
        }),
      ],
      matchRecord: storedMatch(event.id, meetingKey, match, previous.meetingId ?? undefined),
    };
  });
}
