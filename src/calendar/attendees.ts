import type { CalendarAttendee } from './calendar-event.ts';

/**
 * Who an attendee is, for skipping and matching (docs/protocols.md §5: internal attendees never drive
 * the match; personal mail domains are excluded; rooms are not people).
 */

export type AttendeeKind = 'internal' | 'external' | 'personal' | 'resource';

// Free mail providers: a domain shared by millions of strangers identifies no Account.
export const PERSONAL_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'ymail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.net',
  'gmx.de',
  'web.de',
  'mail.com',
  'yandex.com',
  'yandex.ru',
  'zoho.com',
  'qq.com',
  '163.com',
  'fastmail.com',
  'hey.com',
]);

// Google's room, equipment and shared calendars are addresses, not people.
const CALENDAR_SYSTEM_DOMAIN = /(^|\.)(resource|group|import)\.calendar\.google\.com$/;
// Strict enough to be safe inside a quoted SOQL literal after escaping, loose enough for real mail.
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

export function normaliseEmail(email: string): string | undefined {
  const trimmed = email.trim().toLowerCase();
  return EMAIL.test(trimmed) ? trimmed : undefined;
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

export function isInternalDomain(domain: string, internalDomains: readonly string[]): boolean {
  // A subdomain of a company domain (eu.example.com) is the company too.
  return internalDomains.some((internal) => domain === internal || domain.endsWith(`.${internal}`));
}

export function classifyAttendee(attendee: CalendarAttendee, internalDomains: readonly string[]): AttendeeKind {
  const email = normaliseEmail(attendee.email);
  if (email === undefined) return 'resource';
  const domain = emailDomain(email);
  if (attendee.resource === true || CALENDAR_SYSTEM_DOMAIN.test(domain)) return 'resource';
  if (isInternalDomain(domain, internalDomains)) return 'internal';
  if (PERSONAL_MAIL_DOMAINS.has(domain)) return 'personal';
  return 'external';
}

/**
 * The company's domains: the configured ones, or — when none are configured — the domain of the
 * calendar owner or organizer, so the rep is never matched against the CRM as a customer.
 */
export function effectiveInternalDomains(configured: readonly string[], ...ownerEmails: Array<string | undefined>): string[] {
  if (configured.length > 0) return [...configured];
  const domains = ownerEmails.map((email) => (email ? normaliseEmail(email) : undefined)).filter((email): email is string => email !== undefined);
  return [...new Set(domains.map(emailDomain))];
}

/** Unique normalised emails of the attendees of one kind, in attendee order. */
export function emailsOfKind(attendees: readonly CalendarAttendee[], kind: AttendeeKind, internalDomains: readonly string[]): string[] {
  const emails = attendees
    .filter((attendee) => classifyAttendee(attendee, internalDomains) === kind)
    .map((attendee) => normaliseEmail(attendee.email))
    .filter((email): email is string => email !== undefined);
  return [...new Set(emails)];
}

/**
 * Whether an attendee of an imported meeting is one of the company's own people: a domain in
 * INTERNAL_EMAIL_DOMAINS, or the host's own domain (the host is always the company's).
 */
export function isInternalEmail(email: string, internalDomains: readonly string[], hostEmail: string | undefined): boolean {
  const domain = emailDomain(email);
  const hostDomain = hostEmail ? emailDomain(hostEmail) : undefined;
  return isInternalDomain(domain, internalDomains) || domain === hostDomain;
}
