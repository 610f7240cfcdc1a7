import { planOf } from './plan.ts';
import { type FillFrame, idsOf } from './rows.ts';
import { companyOf, identityOf } from './vary.ts';
import { COMPANY_COUNT, companyName, NOWHERE_WORD } from './words.ts';

/**
 * What the measurement looks for, worked out from the generator alone (no store read): one company
 * of middling size, whose name is the title word searched, and the newest meeting of it matched
 * from a calendar event, whose delivery, attendee, opportunity and source id the other reads use.
 */

/** Company index COMPANY_COUNT / 4 holds about 1 / COMPANY_COUNT of the meetings (vary.ts companyOf): neither a big account nor a rare one. */
export const SEARCH_COMPANY = Math.floor(COMPANY_COUNT / 4);

export interface Sample {
  /** Index of the sample event in the year. */
  n: number;
  eventId: number;
  deliveryId: number;
  title: string;
  /** The title word searched: the company's name. */
  titleWord: string;
  /** How many of the year's meetings carry the title word (from the generator). */
  titleWordMeetings: number;
  buyerEmail: string;
  opportunityId: string;
  sourceId: string;
  nowhereWord: string;
}

export function sampleOf(events: number): Sample {
  const frame: FillFrame = { total: events, end: 0, base: { message: 0, event: 0, job: 0, meeting: 0 } };
  for (let n = events - 1; n >= 0; n--) {
    const plan = planOf(n, events);
    if (plan.recipe !== 'calendarMatched' || plan.variant !== 'normal' || companyOf(n) !== SEARCH_COMPANY) continue;
    const who = identityOf(n);
    const ids = idsOf(n, n, frame);
    let titleWordMeetings = 0;
    for (let i = 0; i < events; i++) if (companyOf(i) === SEARCH_COMPANY) titleWordMeetings += 1;
    return {
      n,
      eventId: ids.event,
      deliveryId: ids.delivery,
      title: who.title,
      titleWord: companyName(SEARCH_COMPANY),
      titleWordMeetings,
      buyerEmail: who.buyerEmail,
      opportunityId: who.opportunity.id18,
      sourceId: who.calendarId,
      nowhereWord: NOWHERE_WORD,
    };
  }
  throw new Error(`no calendar meeting of ${companyName(SEARCH_COMPANY)} among ${events} events: too few to measure`);
}

/** The activity chart's range the benchmark asks for: the last 30 days of the year, by the hour. */
export function lastThirtyDays(yearEnd: number): { since: string; until: string } {
  const hour = 3_600_000;
  const until = Math.floor(yearEnd / hour) * hour + hour;
  return { since: new Date(until - 30 * 24 * hour).toISOString(), until: new Date(until).toISOString() };
}
