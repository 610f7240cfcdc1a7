import { SoqlError, unsupported } from './soql-error.ts';

/**
 * SOQL literals as the parser hands them over (raw text, quotes included): strings with their
 * escapes, LIKE patterns, dates, datetimes and relative date literals (docs/protocols.md §2 "SOQL").
 */

const ESCAPES: Record<string, string> = {
  n: '\n',
  N: '\n',
  r: '\r',
  R: '\r',
  t: '\t',
  T: '\t',
  b: '\b',
  B: '\b',
  f: '\f',
  F: '\f',
  '"': '"',
  "'": "'",
  '\\': '\\',
};

/** Walks a quoted literal: `emit(char, escaped)` for each character, escapes resolved. */
function scan(raw: string, emit: (char: string, escaped: boolean) => void): void {
  if (raw.length < 2 || !raw.startsWith("'") || !raw.endsWith("'")) throw new SoqlError('MALFORMED_QUERY', `expected a quoted string, found ${raw}`);
  const text = raw.slice(1, -1);
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charAt(i);
    if (char !== '\\') {
      emit(char, false);
      continue;
    }
    const next = text.charAt(i + 1);
    i += 1;
    if (next === 'u' || next === 'U') {
      const hex = text.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new SoqlError('MALFORMED_QUERY', `Invalid string literal ${raw}: bad \\u escape`);
      emit(String.fromCharCode(parseInt(hex, 16)), true);
      i += 4;
    } else if (next === '%' || next === '_') emit(next, true);
    else if (Object.hasOwn(ESCAPES, next)) emit(ESCAPES[next]!, true);
    else throw new SoqlError('MALFORMED_QUERY', `Invalid string literal ${raw}. Illegal character sequence '\\${next}' in string literal.`);
  }
}

/** The text of a quoted SOQL string (`'O\'Brien'` → O'Brien). */
export function stringLiteral(raw: string): string {
  let text = '';
  scan(raw, (char) => (text += char));
  return text;
}

/** A LIKE pattern as a regular expression: `%` any run, `_` one character, `\%` `\_` themselves; case-insensitive. */
export function likePattern(raw: string): RegExp {
  let source = '';
  scan(raw, (char, escaped) => {
    if (!escaped && char === '%') source += '.*';
    else if (!escaped && char === '_') source += '.';
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  });
  return new RegExp(`^${source}$`, 'is');
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** Midnight UTC of a `YYYY-MM-DD` date, in ms; undefined when it is not one. */
export function dateMs(text: string): number | undefined {
  const match = DATE.exec(text);
  if (match === null) return undefined;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(ms).toISOString().startsWith(text) ? ms : undefined;
}

/** A datetime (`2026-03-02T16:00:00Z`, `…000+0000` as Salesforce writes them, `…+01:00`) in ms. */
export function dateTimeMs(text: string): number | undefined {
  const match = DATETIME.exec(text);
  if (match === null || dateMs(match[1]!) === undefined) return undefined;
  const zone = match[4] === 'Z' ? 'Z' : `${match[4]!.slice(0, 3)}:${match[4]!.slice(-2)}`;
  const ms = Date.parse(`${match[1]}T${match[2]}${match[3] ?? ''}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A relative date literal as the range of time it stands for: [start, end) in ms. */
export interface DateRange {
  start: number;
  end: number;
}

const DAY = 86_400_000;

/**
 * The range of TODAY, YESTERDAY, TOMORROW, LAST_N_DAYS:n, NEXT_N_DAYS:n, N_DAYS_AGO:n in UTC, days
 * counted from midnight. LAST_N_DAYS:n runs from n days ago through the end of today; NEXT_N_DAYS:n
 * from tomorrow through n days ahead, today left out (docs/protocols.md §2 "SOQL").
 */
export function dateLiteralRange(literal: string, now: number): DateRange {
  const today = Math.floor(now / DAY) * DAY;
  const [name = '', count] = literal.toUpperCase().split(':');
  const n = count === undefined ? undefined : Number(count);
  const days = (from: number, to: number) => ({ start: today + from * DAY, end: today + to * DAY });
  if (n === undefined) {
    if (name === 'TODAY') return days(0, 1);
    if (name === 'YESTERDAY') return days(-1, 0);
    if (name === 'TOMORROW') return days(1, 2);
  } else if (Number.isInteger(n) && n >= 0) {
    if (name === 'LAST_N_DAYS') return days(-n, 1);
    if (name === 'NEXT_N_DAYS') return days(1, n + 1);
    if (name === 'N_DAYS_AGO') return days(-n, -n + 1);
  }
  throw unsupported(`the date literal ${literal}`);
}
