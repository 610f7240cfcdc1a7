import type { EventMapper } from '../mapping/event-mapper.ts';
import type { CalendarRules } from '../mapping/rules-schema.ts';
import type { AttendeeDirectory } from './attendee-directory.ts';
import { createCalendarEventMapper } from './calendar-mapper.ts';

/**
 * The map-event mappers for calendar events, keyed by InboundEvent.source: `google` (push + sync),
 * `microsoft` (Graph notifications + delta sync) and `calendar` (the signed generic route); one
 * mapper, as all store the same calendar event.
 */
export function calendarMappers(deps: {
  rules: CalendarRules;
  internalDomains: readonly string[];
  directory: AttendeeDirectory | undefined;
}): Record<'google' | 'microsoft' | 'calendar', EventMapper> {
  const mapper = createCalendarEventMapper({
    rules: deps.rules,
    internalDomains: deps.internalDomains,
    ...(deps.directory ? { directory: deps.directory } : {}),
  });
  return { google: mapper, microsoft: mapper, calendar: mapper };
}
