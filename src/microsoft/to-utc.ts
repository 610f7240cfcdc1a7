/**
 * Graph's `{dateTime, timeZone}` → an ISO instant in UTC. The bridge asks Graph for UTC
 * (`Prefer: outlook.timezone="UTC"`), so this mostly reads UTC; an answer in another zone is
 * converted, whether the zone is named the IANA way or the Windows way Outlook uses.
 */

// Windows zone ids Outlook commonly returns, with their IANA equivalents (CLDR windowsZones, territory 001).
const WINDOWS_ZONES: Readonly<Record<string, string>> = {
  'Dateline Standard Time': 'Etc/GMT+12',
  'Hawaiian Standard Time': 'Pacific/Honolulu',
  'Alaskan Standard Time': 'America/Anchorage',
  'Pacific Standard Time': 'America/Los_Angeles',
  'US Mountain Standard Time': 'America/Phoenix',
  'Mountain Standard Time': 'America/Denver',
  'Central Standard Time': 'America/Chicago',
  'Central America Standard Time': 'America/Guatemala',
  'Canada Central Standard Time': 'America/Regina',
  'Central Standard Time (Mexico)': 'America/Mexico_City',
  'Eastern Standard Time': 'America/New_York',
  'SA Pacific Standard Time': 'America/Bogota',
  'Atlantic Standard Time': 'America/Halifax',
  'Newfoundland Standard Time': 'America/St_Johns',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'Argentina Standard Time': 'America/Buenos_Aires',
  UTC: 'Etc/UTC',
  'Coordinated Universal Time': 'Etc/UTC',
  'GMT Standard Time': 'Europe/London',
  'Greenwich Standard Time': 'Atlantic/Reykjavik',
  'W. Europe Standard Time': 'Europe/Berlin',
  'Romance Standard Time': 'Europe/Paris',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Central European Standard Time': 'Europe/Warsaw',
  'GTB Standard Time': 'Europe/Bucharest',
  'FLE Standard Time': 'Europe/Kiev',
  'E. Europe Standard Time': 'Europe/Chisinau',
  'Israel Standard Time': 'Asia/Jerusalem',
  'South Africa Standard Time': 'Africa/Johannesburg',
  'Russian Standard Time': 'Europe/Moscow',
  'Turkey Standard Time': 'Europe/Istanbul',
  'Arabian Standard Time': 'Asia/Dubai',
  'India Standard Time': 'Asia/Calcutta',
  'SE Asia Standard Time': 'Asia/Bangkok',
  'China Standard Time': 'Asia/Shanghai',
  'Singapore Standard Time': 'Asia/Singapore',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'Korea Standard Time': 'Asia/Seoul',
  'AUS Eastern Standard Time': 'Australia/Sydney',
  'E. Australia Standard Time': 'Australia/Brisbane',
  'W. Australia Standard Time': 'Australia/Perth',
  'New Zealand Standard Time': 'Pacific/Auckland',
};

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/;

/** The zone's offset from UTC at `utcMs`, in ms, by asking Intl how that instant reads there. */
function offsetAt(zone: string, utcMs: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(utcMs / 1000) * 1000;
}

/** The instant, or undefined when the text or the zone cannot be read. */
export function toUtc(value: { dateTime: string; timeZone?: string | null | undefined }): string | undefined {
  const text = value.dateTime.trim();
  // Already an instant (an offset or Z): the zone field does not change it.
  if (/(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
  const match = LOCAL.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction] = match;
  const asUtc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0), Number((fraction ?? '0').slice(0, 3).padEnd(3, '0')));
  const named = value.timeZone?.trim() || 'UTC';
  const zone = WINDOWS_ZONES[named] ?? named;
  try {
    // Two passes settle the offset across a daylight-saving change.
    const first = asUtc - offsetAt(zone, asUtc);
    const instant = asUtc - offsetAt(zone, first);
    return new Date(instant).toISOString();
  } catch {
    return undefined; // a zone name Intl does not know
  }
}
