import { z } from 'zod';

import { defineJobKind } from '../jobs/job-kind.ts';
import type { InboundEvent, NewJob } from '../store/types.ts';

/** `map-event`: map one stored inbound event, whatever its source, with the rules in force. */
export const mapEventKind = defineJobKind('map-event', z.object({ eventId: z.number().int().positive() }), {
  invalid: () => ({ kind: 'final', state: 'dead', reason: 'invalid map-event payload: expected {eventId: positive integer}' }),
});

export const MAP_EVENT_JOB = mapEventKind.name;

/** Reads which source record a stored payload is a state of; each integration knows its own payloads. */
export type RecordKeyOf = (parsedPayload: unknown) => string | undefined;

/**
 * The one job every new inbound event gets. The states of one source record share a serial key
 * (the source and the record's key), so they are mapped one at a time, never side by side.
 */
export function mapEventJob(event: Pick<InboundEvent, 'id' | 'source' | 'parsedPayload'>, recordKeyOf?: RecordKeyOf): NewJob {
  const recordKey = recordKeyOf?.(event.parsedPayload);
  return mapEventKind.job({ eventId: event.id }, { eventId: event.id, ...(recordKey === undefined ? {} : { serialKey: `${event.source}:${recordKey}` }) });
}

/** What a receiver hands the store to make each new event's jobs: one `map-event`, keyed by its record. */
export const mapEventJobsFor =
  (recordKeyOf: RecordKeyOf) =>
  (event: Pick<InboundEvent, 'id' | 'source' | 'parsedPayload'>): NewJob[] => [mapEventJob(event, recordKeyOf)];
