import type { EventMapper } from '../mapping/event-mapper.ts';
import type { CalendarRules } from '../mapping/rules-schema.ts';
import type { CrmDirectory } from '../matching/directory.ts';
import type { MatchingRules } from '../matching/types.ts';
import { createCalendarEventMapper } from './calendar-mapper.ts';

/**
 * The map-event mappers for calendar events, keyed by InboundEvent.source: `google` (push + sync),
 * `microsoft` (Graph notifications + delta sync) and `calendar` (the signed generic route); one
 * mapper, as all store the same calendar event.
 */
export function calendarMappers(deps: {
  rules: CalendarRules;
  matching: MatchingRules;
  rulesVersion?: string;
  internalDomains: readonly string[];
  directory: CrmDirectory | undefined;
}): Record<'google' | 'microsoft' | 'calendar', EventMapper> {
  const mapper = createCalendarEventMapper({
    rules: deps.rules,
    matching: deps.matching,
    ...(deps.rulesVersion === undefined ? {} : { rulesVersion: deps.rulesVersion }),
    internalDomains: deps.internalDomains,
    ...(deps.directory ? { directory: deps.directory } : {}),
  });
  return { google: mapper, microsoft: mapper, calendar: mapper };
}
