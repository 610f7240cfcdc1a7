/**
 * Date-times as Microsoft Graph writes them: `{ dateTime: '2026-03-02T16:00:00.0000000', timeZone }`
 * with seven fractional digits and no offset, the zone named the Windows way ('Pacific Standard
 * Time') or as IANA; and instants as `2026-03-02T16:00:00.1234567Z`.
 */

/** The Windows zone names Outlook uses most, with their IANA equivalents (CLDR windowsZones). */
const WINDOWS_ZONES: Record<string, string> = {
  UTC: 'UTC',
  'Coordinated Universal Time': 'UTC',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Mountain Standard Time': 'America/Denver',
  'Central Standard Time': 'America/Chicago',
  'Eastern Standard Time': 'America/New_York',
  'GMT Standard Time': 'Europe/London',
  'W. Europe Standard Time': 'Europe/Berlin',
  'Romance Standard Time': 'Europe/Paris',
  'Central European Standard Time': 'Europe/Warsaw',
  'India Standard Time': 'Asia/Kolkata',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'AUS Eastern Standard Time': 'Australia/Sydney',
};

export function ianaZone(timeZone: string): string | undefined {
  const known = WINDOWS_ZONES[timeZone];
  if (known) return known;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return undefined;
  }
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?$/;

/** The wall-clock fields of an instant in a zone, as if they were UTC (the zone's offset added). */
function wallClockMs(instant: number, iana: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: iana,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const field = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second')) + (instant % 1000);
}

/** The instant (ms since the epoch) of a Graph local date-time in its zone; NaN when unreadable. */
export function graphLocalToUtcMs(dateTime: string, timeZone: string): number {
  const match = LOCAL.exec(dateTime);
  const iana = ianaZone(timeZone);
  if (!match || !iana) return Number.NaN;
  const [, y, mo, d, h, mi, s, fraction] = match;
  const naive = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0), Number((fraction ?? '0').padEnd(3, '0').slice(0, 3)));
  // Two rounds settle the offset except inside a DST gap, which no test event needs.
  const guess = naive - (wallClockMs(naive, iana) - naive);
  return naive - (wallClockMs(guess, iana) - guess);
}

/** An instant as a Graph local date-time in a zone: `2026-03-02T08:00:00.0000000`. */
export function utcMsToGraphLocal(instant: number, timeZone: string): string {
  const iana = ianaZone(timeZone) ?? 'UTC';
  return new Date(wallClockMs(instant, iana)).toISOString().replace(/\.(\d{3})Z$/, '.$10000');
}

/** Graph's instant format, seven fractional digits: `2026-03-02T16:00:00.1230000Z`. */
export function graphInstant(instant: number): string {
  return new Date(instant).toISOString().replace(/\.(\d{3})Z$/, '.$10000Z');
}

/** Reads an instant the client sent; Graph takes a value without offset as UTC. */
export function parseClientInstant(text: unknown): number {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(text)) return Number.NaN;
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
}
