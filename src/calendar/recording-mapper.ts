import { describeIssues } from '../core/describe-issues.ts';
import { type EventMapper, UnmappableEventError } from '../mapping/event-mapper.ts';
import { type MappingOutcome, skipped } from '../mapping/mapping-outcome.ts';
import type { CalendarRules, RecordingRules } from '../mapping/rules-schema.ts';
import type { CrmDirectory } from '../matching/directory.ts';
import type { MatchingRules } from '../matching/types.ts';
import { type ImportRequest, importRequestSchema } from '../momentum/schemas.ts';
import { isInternalEmail, normaliseEmail } from './attendees.ts';
import { matchCalendarEvent, type MatchDeps, matchDepsOf } from './match.ts';
import { recordingClues } from './meeting-clues.ts';
import { type RecordingEvent, recordingEventSchema } from './recording-event.ts';

export interface RecordingMapperDeps {
  rules: RecordingRules;
  /** The calendar rules' explicit id keys, for matching. */
  calendar: Pick<CalendarRules, 'explicitIdKeys'>;
  matching: MatchingRules;
  rulesVersion?: string;
  internalDomains: readonly string[];
  directory?: CrmDirectory;
}

/**
 * One recorded meeting → an import `{meeting, processImportedMeeting}`, with the CRM ids the same
 * matching as calendar events finds (explicit ids, then attendees). A recording with no CRM match
 * is imported without ids, unless the rules say `recordings.requireCrmMatch`.
 */
export async function mapRecording(recording: RecordingEvent, deps: RecordingMapperDeps, pin?: MatchDeps['pin']): Promise<MappingOutcome> {
  const hostEmail = recording.host?.email ? normaliseEmail(recording.host.email) : undefined;
  const attendees = recording.attendees.flatMap((attendee) => {
    const email = normaliseEmail(attendee.email);
    return email === undefined
      ? []
      : [{ email, ...(attendee.name ? { name: attendee.name } : {}), isInternal: isInternalEmail(email, deps.internalDomains, hostEmail) }];
  });
  const match = await matchCalendarEvent(
    {
      attendees: attendees.map(({ email, name }) => ({ email, ...(name ? { name } : {}) })),
      ...(hostEmail ? { calendarId: hostEmail, organizerEmail: hostEmail } : {}),
      // Attendee matching looks for records around the meeting's time; a recording without one was just made.
      start: recording.start ?? new Date().toISOString(),
      ...(recording.explicitIds ? { explicitIds: recording.explicitIds } : {}),
    },
    matchDepsOf({ ...deps, explicitIdKeys: deps.calendar.explicitIdKeys }, pin),
  );
  const records = match.records;
  const found = Boolean(records.opportunityId ?? records.accountId ?? records.leadId);
  const clues = recordingClues(recording, hostEmail);
  if (!found && deps.rules.requireCrmMatch) {
    const reason =
      match.outcome === 'ambiguous'
        ? `ambiguous CRM match and recordings.requireCrmMatch is set: ${match.summary}`
        : `no CRM match and recordings.requireCrmMatch is set; tried ${match.tried.join('; ')}`;
    return { ...skipped(reason, match), clues };
  }

  const request: ImportRequest = {
    meeting: {
      id: recording.meetingId,
      ...(recording.title ? { title: recording.title } : {}),
      ...(recording.start ? { startTime: recording.start } : {}),
      ...(recording.end ? { endTime: recording.end } : {}),
      ...(recording.host && (hostEmail || recording.host.name)
        ? { host: { ...(hostEmail ? { email: hostEmail } : {}), ...(recording.host.name ? { name: recording.host.name } : {}) } }
        : {}),
      recordingUrl: recording.recordingUrl,
      ...(recording.callUrl ? { callUrl: recording.callUrl } : {}),
      ...(attendees.length > 0 ? { attendees } : {}),
      ...(records.accountId ? { salesforceAccountId: records.accountId } : {}),
      ...(records.opportunityId ? { salesforceOpportunityId: records.opportunityId } : {}),
    },
    processImportedMeeting: deps.rules.processImportedMeeting[recording.origin],
  };
  const checked = importRequestSchema.safeParse(request);
  if (!checked.success) throw new UnmappableEventError(`recording ${recording.meetingId} makes an invalid import: ${describeIssues(checked.error)}`);
  return { kind: 'import', request, rule: found ? match.rule : 'no_crm_match', match, clues };
}

/** The map-event mapper for stored recordings (source `recording`, and Zoom's after its participants are read). */
export function createRecordingMapper(deps: RecordingMapperDeps): EventMapper {
  return async (inbound, context) => {
    const parsed = recordingEventSchema.safeParse(inbound.parsedPayload);
    if (!parsed.success) throw new UnmappableEventError(`stored recording ${inbound.id} is unreadable: ${describeIssues(parsed.error)}`);
    return mapRecording(parsed.data, deps, context.pin);
  };
}
