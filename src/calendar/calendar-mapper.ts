import { describeIssues } from '../core/describe-issues.ts';
import { type EventMapper, UnmappableEventError } from '../mapping/event-mapper.ts';
import { type MappingOutcome, skipped } from '../mapping/mapping-outcome.ts';
import type { CalendarRules } from '../mapping/rules-schema.ts';
import type { CrmDirectory } from '../matching/directory.ts';
import type { MatchingRules, MatchRecord } from '../matching/types.ts';
import { remapCoalesceKey } from '../momentum/remap-coalesce-key.ts';
import { type RemapRequest, remapRequestSchema } from '../momentum/schemas.ts';
import { classifyAttendee, normaliseEmail } from './attendees.ts';
import { type CalendarEvent, calendarVersion, storedCalendarSchema } from './calendar-event.ts';
import { matchCalendarEvent, type MatchDeps, matchDepsOf } from './match.ts';
import { calendarClues, cancellationClues } from './meeting-clues.ts';

export interface CalendarMapperDeps {
  rules: CalendarRules;
  matching: MatchingRules;
  /** The mapping file's version, named in every match record. */
  rulesVersion?: string;
  internalDomains: readonly string[];
  directory?: CrmDirectory;
}

/**
 * The host: the organizer, unless the organizer is a shared or room calendar (Google names those
 * `…@group.calendar.google.com`), in which case the watched calendar's owner hosts.
 */
function hostEmail(event: CalendarEvent): string | undefined {
  for (const candidate of [event.organizerEmail, event.calendarId]) {
    const email = candidate ? normaliseEmail(candidate) : undefined;
    if (email !== undefined && classifyAttendee({ email }, []) !== 'resource') return email;
  }
  return undefined;
}

/**
 * The meeting's source for Momentum: the calendar's own type and event id. A Microsoft event names
 * one only when the rules give its type, and then by its iCalUId (the id Outlook shares across
 * attendees' copies); otherwise its remap identifies the meeting by title, start and host.
 */
function remapSource(event: CalendarEvent, rules: CalendarRules): { type: string; id: string } | undefined {
  if (event.origin === 'microsoft') {
    return rules.microsoftSourceType !== undefined && event.iCalUId !== undefined ? { type: rules.microsoftSourceType, id: event.iCalUId } : undefined;
  }
  return event.sourceType === undefined ? undefined : { type: event.sourceType, id: event.eventId };
}

/**
 * One stored calendar event → a remap of `{source: {type, id}}` with the matched records, or
 * `skipped: no CRM match` with what was tried. Throws SalesforceLookupError (retry) from lookups.
 */
export async function mapCalendarEvent(event: CalendarEvent, deps: CalendarMapperDeps, pin?: MatchDeps['pin']): Promise<MappingOutcome> {
  if (!deps.rules.enabled) return skipped('calendar mapping is disabled in the mapping rules');
  const match: MatchRecord = await matchCalendarEvent(event, matchDepsOf({ ...deps, explicitIdKeys: deps.rules.explicitIdKeys }, pin));
  const records = match.records;
  const host = hostEmail(event);
  // Kept with a skip too: a meeting with no CRM match is still one meeting with its other sources.
  const clues = calendarClues(event, host);
  if (!records.opportunityId && !records.accountId && !records.leadId) {
    const reason = match.outcome === 'ambiguous' ? `ambiguous match, nothing sent: ${match.summary}` : `no CRM match; tried ${match.tried.join('; ')}`;
    return { ...skipped(reason, match), clues };
  }

  const source = remapSource(event, deps.rules);
  const request: RemapRequest = {
    ...(source === undefined ? {} : { source }),
    salesforceRecords: records,
    meetingDetails: {
      ...(event.title && /\S/.test(event.title) ? { title: event.title } : {}),
      startTime: event.start,
      ...(host ? { hostEmail: host } : {}),
    },
  };
  const checked = remapRequestSchema.safeParse(request);
  if (!checked.success) throw new UnmappableEventError(`calendar event ${event.eventId} makes an invalid remap: ${describeIssues(checked.error)}`);
  return {
    kind: 'remap',
    request: checked.data,
    flags: { triggerSummary: deps.rules.triggerSummary, triggerAiSignals: deps.rules.triggerAiSignals },
    coalesceKey: remapCoalesceKey(checked.data),
    // Which matching rule decided, for the mapping metrics (a fixed name, never data).
    rule: match.rule,
    match,
    clues,
  };
}

/** The map-event handler's mapper for inbound events of source `google` and `calendar`. */
export function createCalendarEventMapper(deps: CalendarMapperDeps): EventMapper {
  return async (inbound, context) => {
    const parsed = storedCalendarSchema.safeParse(inbound.parsedPayload);
    if (!parsed.success) throw new UnmappableEventError(`stored calendar event ${inbound.id} is unreadable: ${describeIssues(parsed.error)}`);
    const sourceVersion = calendarVersion(parsed.data);
    const version = sourceVersion === undefined ? {} : { sourceVersion };
    // A cancelled meeting sends nothing; the handler cancels what is pending for it.
    const mapped: MappingOutcome =
      parsed.data.status === 'cancelled'
        ? {
            kind: 'skipped',
            reason: 'cancelled in its calendar: nothing sent, what was pending for the meeting is cancelled',
            cancelled: true,
            clues: cancellationClues(parsed.data),
          }
        : await mapCalendarEvent(parsed.data, deps, context.pin);
    const outcome = mapped.kind === 'import' ? mapped : { ...mapped, ...version };
    context.logger.debug('calendar event mapped', {
      eventId: inbound.id,
      outcome: outcome.kind,
      ...(outcome.kind === 'skipped' ? { reason: outcome.reason } : {}),
    });
    return outcome;
  };
}
