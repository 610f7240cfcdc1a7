import { createHash, randomBytes } from 'node:crypto';

import { graphInstant, graphLocalToUtcMs, utcMsToGraphLocal } from './fake-microsoft-time.ts';

/** An Outlook event as the fake Graph stores and returns it: its shape, its defaults, and how Graph presents it. */

export interface GraphDateTimeZone {
  dateTime: string;
  timeZone: string;
}
export interface GraphEmailAddress {
  name: string;
  address: string;
}
export interface GraphAttendee {
  type: 'required' | 'optional' | 'resource';
  status: { response: string; time: string };
  emailAddress: GraphEmailAddress;
}
export interface GraphEvent {
  '@odata.etag': string;
  id: string;
  createdDateTime: string;
  lastModifiedDateTime: string;
  changeKey: string;
  iCalUId: string;
  subject: string;
  bodyPreview: string;
  body: { contentType: 'html' | 'text'; content: string };
  start: GraphDateTimeZone;
  end: GraphDateTimeZone;
  originalStartTimeZone: string;
  originalEndTimeZone: string;
  isAllDay: boolean;
  isCancelled: boolean;
  isOnlineMeeting: boolean;
  type: 'singleInstance' | 'occurrence' | 'exception' | 'seriesMaster';
  organizer: { emailAddress: GraphEmailAddress };
  attendees: GraphAttendee[];
  location: { displayName: string };
  onlineMeeting: { joinUrl: string } | null;
  webLink: string;
  [property: string]: unknown;
}
/** What a test gives `upsertEvent`: any fields; the rest are defaulted (or kept from the stored version). */
export type GraphEventInput = Partial<GraphEvent>;

/** Graph's ids are base64 with `-` and `_`. */
export const base64Id = (bytes: number) => randomBytes(bytes).toString('base64').replace(/\//g, '-').replace(/\+/g, '_');

/** A new event in the mailbox at `address`, starting at `startAt`, with every field Graph fills. */
export function defaultEvent(mailbox: { address: string }, startAt: number): GraphEvent {
  const id = `AAMkAD${base64Id(96)}=`;
  const created = graphInstant(Date.now());
  return {
    '@odata.etag': '',
    id,
    createdDateTime: created,
    lastModifiedDateTime: created,
    changeKey: '',
    // Outlook's iCalUId: the Exchange global object id, hex.
    iCalUId: `040000008200E00074C5B7101A82E00800000000${randomBytes(36).toString('hex').toUpperCase()}`,
    subject: '',
    bodyPreview: '',
    body: { contentType: 'html', content: '' },
    start: { dateTime: utcMsToGraphLocal(startAt, 'UTC'), timeZone: 'UTC' },
    end: { dateTime: utcMsToGraphLocal(startAt + 1_800_000, 'UTC'), timeZone: 'UTC' },
    originalStartTimeZone: 'UTC',
    originalEndTimeZone: 'UTC',
    isAllDay: false,
    isCancelled: false,
    isOnlineMeeting: false,
    type: 'singleInstance',
    organizer: { emailAddress: { name: mailbox.address.split('@')[0] ?? mailbox.address, address: mailbox.address } },
    attendees: [],
    location: { displayName: '' },
    onlineMeeting: null,
    webLink: `https://outlook.office365.com/owa/?itemid=${encodeURIComponent(id)}&exvsurl=1&path=/calendar/item`,
  };
}

/** Graph writes local date-times with seven fractional digits. */
export function normalise(value: GraphDateTimeZone): GraphDateTimeZone {
  const instant = graphLocalToUtcMs(value.dateTime, value.timeZone);
  if (Number.isNaN(instant)) throw new Error(`fake Microsoft cannot read the date-time ${JSON.stringify(value)}`);
  return { dateTime: utcMsToGraphLocal(instant, value.timeZone), timeZone: value.timeZone };
}

export const preview = (content: string) =>
  content
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 255);

/**
 * An event as Graph returns it: start and end in UTC unless the request asked for a zone with
 * `Prefer: outlook.timezone`; all-day events keep their midnight date-times.
 */
export function present(event: GraphEvent, outputZone: string): GraphEvent {
  const convert = (value: GraphDateTimeZone): GraphDateTimeZone =>
    event.isAllDay
      ? { dateTime: value.dateTime, timeZone: outputZone }
      : { dateTime: utcMsToGraphLocal(graphLocalToUtcMs(value.dateTime, value.timeZone), outputZone), timeZone: outputZone };
  return { '@odata.type': '#microsoft.graph.event', ...event, start: convert(event.start), end: convert(event.end) };
}

/** A GUID-shaped object id derived from the address, so a test can predict it. */
export const stableUserId = (address: string) => {
  const hex = createHash('sha256').update(address.toLowerCase()).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};
