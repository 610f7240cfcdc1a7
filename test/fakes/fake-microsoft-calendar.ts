import { base64Id, defaultEvent, type GraphEvent, type GraphEventInput, normalise, present, preview, stableUserId } from './fake-microsoft-events.ts';
import { graphInstant, graphLocalToUtcMs, parseClientInstant } from './fake-microsoft-time.ts';

export type { GraphAttendee, GraphDateTimeZone, GraphEmailAddress, GraphEvent, GraphEventInput } from './fake-microsoft-events.ts';
export { stableUserId } from './fake-microsoft-events.ts';

/**
 * The mailboxes of the fake Microsoft 365 tenant and their calendars, kept as a history of
 * versions so that `calendarView/delta` can answer an initial round (live events in the window)
 * and a later round (what changed since a delta token). Tokens are opaque random strings whose
 * meaning stays here, so a client can only follow links it was given.
 */

interface Version {
  seq: number;
  event: GraphEvent | undefined; // undefined: deleted
}
export interface Mailbox {
  address: string;
  userId: string;
  history: Map<string, Version[]>;
  seq: number;
  epoch: number;
  lastModified: number;
}
interface DeltaState {
  mailbox: Mailbox;
  epoch: number;
  windowStart: number;
  windowEnd: number;
  /** Changes after this sequence number; undefined for the initial round. */
  since: number | undefined;
  snapshot: number;
  offset: number;
  pageSize: number | undefined;
}
export type DeltaAnswer = { status: number; body: unknown; headers?: Record<string, string> };

const graphError = (code: string, message: string) => ({ error: { code, message } });

export function createCalendarStore(options: { pageSize: number; now?: () => number }) {
  const now = options.now ?? Date.now;
  const mailboxes = new Map<string, Mailbox>();
  const states = new Map<string, DeltaState>();

  const find = (idOrAddress: string) => {
    const wanted = idOrAddress.toLowerCase();
    return [...mailboxes.values()].find((mailbox) => mailbox.address.toLowerCase() === wanted || mailbox.userId === wanted);
  };
  const addMailbox = (address: string, userId?: string) =>
    find(address) ??
    mailboxes
      .set(address.toLowerCase(), {
        address,
        // Graph names a user by its object id (a GUID) in notifications, whatever the subscription said.
        userId: (userId ?? stableUserId(address)).toLowerCase(),
        history: new Map(),
        seq: 0,
        epoch: 0,
        lastModified: 0,
      })
      .get(address.toLowerCase())!;
  const mailboxOf = (idOrAddress: string) => {
    const mailbox = find(idOrAddress);
    if (!mailbox) throw new Error(`fake Microsoft has no mailbox ${idOrAddress}`);
    return mailbox;
  };
  const latest = (mailbox: Mailbox, id: string, upTo = Number.POSITIVE_INFINITY) =>
    mailbox.history
      .get(id)
      ?.filter((version) => version.seq <= upTo)
      .at(-1);
  const record = (mailbox: Mailbox, id: string, event: GraphEvent | undefined) => {
    mailbox.seq += 1;
    mailbox.history.set(id, [...(mailbox.history.get(id) ?? []), { seq: mailbox.seq, event }]);
  };

  function upsertEvent(idOrAddress: string, input: GraphEventInput): GraphEvent {
    const mailbox = mailboxOf(idOrAddress);
    const previous = input.id === undefined ? undefined : latest(mailbox, input.id)?.event;
    // Two edits within a millisecond still get distinct, increasing lastModifiedDateTime values.
    mailbox.lastModified = Math.max(now(), mailbox.lastModified + 1);
    const changeKey = base64Id(24);
    const startAt = Math.ceil(now() / 3_600_000) * 3_600_000;
    const merged = { ...defaultEvent(mailbox, startAt), ...previous, ...input };
    const event: GraphEvent = {
      ...merged,
      '@odata.etag': `W/"${changeKey}"`,
      changeKey,
      lastModifiedDateTime: graphInstant(mailbox.lastModified),
      start: normalise(merged.start),
      end: normalise(merged.end),
      originalStartTimeZone: input.originalStartTimeZone ?? merged.start.timeZone,
      originalEndTimeZone: input.originalEndTimeZone ?? merged.end.timeZone,
      bodyPreview: input.bodyPreview ?? preview(merged.body.content),
    };
    record(mailbox, event.id, event);
    return event;
  }

  function deleteEvent(idOrAddress: string, eventId: string) {
    const mailbox = mailboxOf(idOrAddress);
    if (!latest(mailbox, eventId)?.event) throw new Error(`fake Microsoft has no event ${eventId} in ${idOrAddress}`);
    record(mailbox, eventId, undefined);
  }

  const inWindow = (event: GraphEvent | undefined, state: DeltaState) => {
    if (!event) return false;
    // calendarView holds the events overlapping [start, end), whatever zone they were written in.
    const start = graphLocalToUtcMs(event.start.dateTime, event.start.timeZone);
    const end = graphLocalToUtcMs(event.end.dateTime, event.end.timeZone);
    return start < state.windowEnd && Math.max(end, start + 1) > state.windowStart;
  };

  /** The items of a round at its snapshot: full events, and `@removed` stubs on later rounds. */
  function roundItems(state: DeltaState, outputZone: string): unknown[] {
    const items: unknown[] = [];
    for (const [id, versions] of state.mailbox.history) {
      const current = latest(state.mailbox, id, state.snapshot);
      if (!current) continue;
      if (state.since === undefined) {
        if (inWindow(current.event, state)) items.push(present(current.event!, outputZone));
        continue;
      }
      if (current.seq <= state.since) continue;
      if (inWindow(current.event, state)) items.push(present(current.event!, outputZone));
      // Deleted, or moved out of the window: reported as removed if the client could have seen it.
      else if (versions.some((version) => version.seq <= state.snapshot && inWindow(version.event, state)))
        items.push({ '@odata.type': '#microsoft.graph.event', id, '@removed': { reason: 'deleted' } });
    }
    return items;
  }

  function issue(state: DeltaState) {
    const token = base64Id(48);
    states.set(token, state);
    return token;
  }

  /**
   * GET {graph}/users/{id}/calendarView/delta: an initial call (startDateTime, endDateTime), a
   * `$skiptoken` (next page of a round) or a `$deltatoken` (the next round).
   */
  function delta(mailbox: Mailbox, query: Record<string, string>, request: { pageSize?: number; timeZone?: string; selfUrl: string }): DeltaAnswer {
    const lower = Object.fromEntries(Object.entries(query).map(([key, value]) => [key.toLowerCase(), value]));
    const token = lower.$skiptoken ?? lower.$deltatoken;
    let state: DeltaState | undefined;
    if (token !== undefined) {
      const stored = states.get(token);
      if (!stored || stored.mailbox !== mailbox) return { status: 400, body: graphError('ErrorInvalidUrlQuery', 'The state token is invalid.') };
      if (stored.epoch !== mailbox.epoch)
        return {
          status: 410,
          body: graphError('syncStateNotFound', 'The sync state was not found; it may have expired. Start a new round without the token.'),
        };
      state = lower.$deltatoken !== undefined ? { ...stored, since: stored.snapshot, snapshot: mailbox.seq, offset: 0, pageSize: undefined } : stored;
    } else {
      const windowStart = parseClientInstant(lower.startdatetime);
      const windowEnd = parseClientInstant(lower.enddatetime);
      if (Number.isNaN(windowStart) || Number.isNaN(windowEnd))
        return {
          status: 400,
          body: graphError(
            'ErrorInvalidParameter',
            'This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.',
          ),
        };
      state = { mailbox, epoch: mailbox.epoch, windowStart, windowEnd, since: undefined, snapshot: mailbox.seq, offset: 0, pageSize: undefined };
    }
    // `Prefer: odata.maxpagesize` counts on the request that carries it; a round remembers its first.
    const pageSize = request.pageSize ?? state.pageSize ?? options.pageSize;
    const items = roundItems(state, request.timeZone ?? 'UTC');
    const page = items.slice(state.offset, state.offset + pageSize);
    const more = state.offset + pageSize < items.length;
    const link = more
      ? { '@odata.nextLink': `${request.selfUrl}?$skiptoken=${issue({ ...state, offset: state.offset + pageSize, pageSize })}` }
      : { '@odata.deltaLink': `${request.selfUrl}?$deltatoken=${issue({ ...state, offset: 0, pageSize: undefined })}` };
    return {
      status: 200,
      body: { '@odata.context': `${request.selfUrl.replace(/\/users\/.*$/, '')}/$metadata#Collection(event)`, ...link, value: page },
      headers: request.pageSize === undefined ? {} : { 'preference-applied': `odata.maxpagesize=${request.pageSize}` },
    };
  }

  return {
    mailboxes,
    find,
    addMailbox,
    upsertEvent,
    deleteEvent,
    delta,
    /** The current version of an event as Graph would show it (UTC unless a zone is asked for), or undefined if deleted. */
    getEvent: (mailbox: Mailbox, id: string, outputZone = 'UTC') => {
      const event = latest(mailbox, id)?.event;
      return event && present(event, outputZone);
    },
    eventsOf: (idOrAddress: string) =>
      [...mailboxOf(idOrAddress).history.keys()].map((id) => latest(mailboxOf(idOrAddress), id)?.event).filter((event) => event !== undefined),
    /** Every delta and skip token issued so far for the mailbox answers 410 Gone from now on. */
    invalidate: (idOrAddress: string) => {
      mailboxOf(idOrAddress).epoch += 1;
    },
  };
}
