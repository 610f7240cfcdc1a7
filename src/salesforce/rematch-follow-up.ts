import type { Logger } from '../core/logger.ts';
import { rematchJob } from '../mapping/rematch-job.ts';
import type { CrmDirectory } from '../matching/directory.ts';
import type { InboundEvent, MatchStore, NewJob } from '../store/types.ts';
import { crmChangeOf } from './crm-change.ts';
import { storedNotificationSchema } from './stored-notification.ts';

const DAY_MS = 86_400_000;
/** Meetings re-checked for one change at most: a change to an Account of thousands of meetings re-checks the newest. */
const MAX_MEETINGS = 500;

export interface RematchFollowUpDeps {
  matches: Pick<MatchStore, 'meetingsTouching'>;
  directory?: CrmDirectory;
  /** The mapping file's matching.rematchDays: meetings matched longer ago stay as they are. */
  rematchDays: number;
  logger: Logger;
  now?: () => number;
}

/**
 * An Outbound Message of an Opportunity, Contact, Lead or contact role re-checks at once the
 * meetings whose match looked at that record (docs/calendars.md, re-matching), after forgetting the
 * cached lookups it made stale: a `rematch` job per meeting, coalesced per meeting.
 */
export function createRematchFollowUp(deps: RematchFollowUpDeps): (event: InboundEvent) => Promise<NewJob[]> {
  const now = deps.now ?? Date.now;
  return async (event) => {
    const parsed = storedNotificationSchema.safeParse(event.parsedPayload);
    const found = parsed.success ? crmChangeOf(parsed.data) : undefined;
    if (found === undefined) return [];
    deps.directory?.forget(found.change);
    const meetings = await deps.matches.meetingsTouching(found.touches, now() - deps.rematchDays * DAY_MS, MAX_MEETINGS);
    if (meetings.length > 0) deps.logger.info('CRM change re-checks meetings', { eventId: event.id, cause: found.cause, meetings: meetings.length });
    return meetings.map((meetingKey) => rematchJob(meetingKey, found.cause));
  };
}
