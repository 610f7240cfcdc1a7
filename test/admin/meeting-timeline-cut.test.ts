import { describe, expect, it } from 'vitest';

import { meetingTimeline, timelineCut } from '../../src/admin/meeting-timeline.ts';
import type { InboundEvent, Job } from '../../src/store/types.ts';

/*
 * A meeting's timeline when its lists were cut at 50 (GET /admin/meetings/:key `timelineFrom`):
 * it starts where every list is whole, so no delivery shows without the events around it.
 */

const T = Date.parse('2026-11-27T10:00:00Z');
const MINUTE = 60_000;

const event = (n: number): InboundEvent =>
  ({ id: n, source: 'google', receivedAt: T + n * MINUTE, state: 'mapped', stateReason: null, parsedPayload: {} }) as unknown as InboundEvent;
const delivery = (n: number): Job =>
  ({
    id: 1000 + n,
    kind: 'remap',
    state: 'succeeded',
    createdAt: T + n * MINUTE,
    updatedAt: T + n * MINUTE,
    deliveryNo: n,
    eventId: n,
    lastError: null,
    replayOf: null,
  }) as unknown as Job;

describe('a meeting timeline cut at the page size', () => {
  it('when 80 events made 12 deliveries, of which the newest 50 events are listed, then the timeline starts at the oldest listed event, and older deliveries are left out', () => {
    // Arrange: events 31…80 listed (newest 50); deliveries at events 5, 10, … 60 (all 12 listed).
    const events = Array.from({ length: 50 }, (_, index) => event(80 - index));
    const deliveries = Array.from({ length: 12 }, (_, index) => delivery(60 - index * 5));

    // Act
    const from = timelineCut([events.map((item) => item.receivedAt), [], deliveries.map((job) => job.createdAt)], 50);
    const timeline = meetingTimeline({ events, matches: [], deliveries, attempts: new Map(), pin: undefined, ...(from === undefined ? {} : { from }) });

    // Assert
    expect(from).toBe(T + 31 * MINUTE);
    const shown = timeline.filter((entry) => entry.type === 'delivery').map((entry) => ('deliveryId' in entry ? entry.deliveryId : 0));
    expect(shown).toEqual([1060, 1055, 1050, 1045, 1040, 1035]);
    expect(timeline.filter((entry) => entry.type === 'event')).toHaveLength(50);
  });

  it('when no list reached the page size, then nothing is cut', () => {
    expect(timelineCut([[T], [T + 1], []], 50)).toBeUndefined();
  });
});
