import { z } from 'zod';

import { classifyAttendee, effectiveInternalDomains, normaliseEmail } from '../calendar/attendees.ts';
import { describeIssues } from '../core/describe-issues.ts';
import { type EventMapper, UnmappableEventError } from '../mapping/event-mapper.ts';
import { type MappingOutcome, skipped } from '../mapping/mapping-outcome.ts';
import type { CrmDirectory } from '../matching/directory.ts';
import { matchMeeting, pinnedMatch } from '../matching/match-meeting.ts';
import type { MatchAttendee, MatchingRules } from '../matching/types.ts';
import { holdsIds } from '../momentum/held-ids.ts';
import type { ListedMeeting } from '../momentum/meeting-list.ts';
import { remapCoalesceKey } from '../momentum/remap-coalesce-key.ts';
import { type RemapFlags, type RemapRequest, remapRequestSchema } from '../momentum/schemas.ts';
import { JOB_PRIORITY } from '../store/types.ts';

/**
 * The mapper of `momentum` events: a meeting Momentum listed that the bridge never delivered for,
 * stored by a reconcile page (reconcile-handler.ts). It is matched like a calendar event, from the
 * attendees Momentum lists (`isInternal` marks the company's own; the host is always internal),
 * and remapped in the lowest priority class only when the best match differs from what Momentum
 * holds. Never a pinned meeting, never a tie.
 */

const text = z.string().optional();
const storedMeetingSchema = z.object({
  id: z.string(),
  title: text,
  startTime: text,
  endTime: text,
  host: z.object({ email: text, name: text }).optional(),
  attendees: z.array(z.object({ email: text, name: text, isInternal: z.boolean().optional(), salesforceLeadId: text })),
  salesforceAccountId: text,
  salesforceOpportunityId: text,
});

export interface MomentumMeetingMapperDeps {
  matching: MatchingRules;
  rulesVersion?: string;
  internalDomains: readonly string[];
  directory?: CrmDirectory;
  /** The calendar rules' flags: a reconciled meeting is remapped as a calendar meeting would be. */
  flags: RemapFlags;
}

/** The meeting's attendees for matching: the host and those Momentum marks internal are internal; rooms and unreadable addresses left out. */
export function reconcileAttendees(meeting: ListedMeeting, internalDomains: readonly string[]): MatchAttendee[] {
  const host = meeting.host?.email === undefined ? undefined : normaliseEmail(meeting.host.email);
  const domains = effectiveInternalDomains(internalDomains, host);
  const seen = new Map<string, MatchAttendee>();
  for (const attendee of meeting.attendees) {
    const email = attendee.email === undefined ? undefined : normaliseEmail(attendee.email);
    if (email === undefined || seen.has(email)) continue;
    const kind = attendee.isInternal === true ? 'internal' : classifyAttendee({ email }, domains);
    if (kind !== 'resource') seen.set(email, { email, kind });
  }
  if (host !== undefined) seen.set(host, { email: host, kind: 'internal' });
  return [...seen.values()];
}

/** Momentum's own id when it is one the remap can carry (an integer), else the meeting's details. */
function identityOf(meeting: ListedMeeting): Pick<RemapRequest, 'meetingDetails'> {
  const id = /^\d{1,15}$/.test(meeting.id) ? Number(meeting.id) : undefined;
  if (id !== undefined) return { meetingDetails: { momentumMeetingId: id } };
  return {
    meetingDetails: {
      ...(meeting.title ? { title: meeting.title } : {}),
      ...(meeting.startTime ? { startTime: meeting.startTime } : {}),
      ...(meeting.host?.email ? { hostEmail: meeting.host.email } : {}),
    },
  };
}

export async function mapMomentumMeeting(
  meeting: ListedMeeting,
  deps: MomentumMeetingMapperDeps,
  pin?: Parameters<typeof pinnedMatch>[0],
): Promise<MappingOutcome> {
  if (pin !== undefined) return skipped('pinned: a reconcile never changes a pinned meeting', pinnedMatch(pin, deps.rulesVersion));
  const startMs = meeting.startTime === undefined ? Number.NaN : Date.parse(meeting.startTime);
  if (Number.isNaN(startMs)) return skipped('Momentum lists no start time for the meeting: it cannot be matched');
  const match = await matchMeeting({ attendees: reconcileAttendees(meeting, deps.internalDomains), startMs }, deps.directory, deps.matching, deps.rulesVersion);
  if (match.outcome === 'ambiguous') return skipped(`tie, nothing sent: a reconcile never picks between tied candidates (${match.summary})`, match);
  const records = match.records;
  if (!records.opportunityId && !records.accountId && !records.leadId) return skipped(`no CRM match; tried ${match.tried.join('; ')}`, match);
  if (holdsIds(meeting, records)) return skipped('Momentum already holds the best match', match);

  const request = { ...identityOf(meeting), salesforceRecords: records };
  const checked = remapRequestSchema.safeParse(request);
  if (!checked.success) throw new UnmappableEventError(`Momentum meeting ${meeting.id} makes an invalid remap: ${describeIssues(checked.error)}`);
  return {
    kind: 'remap',
    request: checked.data,
    flags: deps.flags,
    coalesceKey: remapCoalesceKey(checked.data),
    rule: match.rule,
    match,
    priority: JOB_PRIORITY.bulk,
  };
}

export function createMomentumMeetingMapper(deps: MomentumMeetingMapperDeps): EventMapper {
  return async (inbound, context) => {
    const parsed = storedMeetingSchema.safeParse(inbound.parsedPayload);
    if (!parsed.success) throw new UnmappableEventError(`stored Momentum meeting ${inbound.id} is unreadable: ${describeIssues(parsed.error)}`);
    const outcome = await mapMomentumMeeting(parsed.data as ListedMeeting, deps, context.pin);
    context.logger.debug('Momentum meeting matched', {
      eventId: inbound.id,
      outcome: outcome.kind,
      ...(outcome.kind === 'skipped' ? { reason: outcome.reason } : {}),
    });
    return outcome;
  };
}
