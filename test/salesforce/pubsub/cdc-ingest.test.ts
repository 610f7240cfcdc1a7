import { expect, it } from 'vitest';

import type { InboundMetrics } from '../../../src/metrics/bridge-metrics.ts';
import { createChangeDecoder } from '../../../src/salesforce/pubsub/avro-decoder.ts';
import { createCdcIngest } from '../../../src/salesforce/pubsub/cdc-ingest.ts';
import type { RecordReader } from '../../../src/salesforce/pubsub/record-reader.ts';
import type { ReceivedEvent } from '../../../src/salesforce/pubsub/stream-types.ts';
import type { NewInboundMessage, Store } from '../../../src/store/types.ts';
import { cleanupAfterEach } from '../../support/cleanups.ts';
import { captureLogs } from '../../support/log-capture.ts';
import { type Engine, openRealStore } from '../../support/real-store.ts';
import { describeEachEngine, queryRows } from '../../support/stored-state.ts';
import { cdcSchema, encodeChange, type HeaderValues, schemaJson } from './support/change-events.ts';
import { replayId } from './support/scripted-stream.ts';

/*
 * createCdcIngest on a real store of each engine: a batch a subscription receives becomes ONE
 * ingest — its notifications, their map-event jobs and the replay id of its last event commit
 * together — so a crash keeps both or neither; a batch of ignored changes still moves the replay id;
 * a batch delivered again stores nothing twice (docs/operations.md, "Salesforce Pub/Sub").
 */

const cleanups = cleanupAfterEach();
const ORG = '00D8d0000001XyZEAU';
const TOPIC = '/data/EventChangeEvent';
const SELF = 'bridge-app';
const DEAL = '0068d0000101XyZAAU';
const SCHEMA_ID = 'event-schema-1';
const EVENT_SCHEMA = cdcSchema('Event');
const eventId = (n: number) => `00U8d0000${String(960 + n).padStart(3, '0')}XyZEAU`;

/** Event n's change as Salesforce streams it, with replay id n. */
function change(n: number, header: Partial<HeaderValues>, fields: Record<string, unknown> = {}): ReceivedEvent {
  const values = { recordIds: [eventId(n)], entityName: 'Event', transactionKey: `tx-${n}`, commitTimestamp: BigInt(1_772_000_000_000 + n * 1_000), ...header };
  return { id: `event-${n}`, schemaId: SCHEMA_ID, payload: encodeChange(EVENT_SCHEMA, { header: values, fields }), replayId: replayId(n) };
}
const created = (n: number) => change(n, { changeType: 'CREATE' }, { WhatId: DEAL, Subject: `Call ${n}` });
const ownChange = (n: number) =>
  change(n, { changeType: 'UPDATE', changeOrigin: `com/salesforce/api/rest/62.0;client=${SELF}` }, { Subject: 'Set by the bridge' });

async function ingestOn(engine: Engine, reader: Partial<RecordReader> = {}) {
  const real = await openRealStore(engine, 'cdc_ingest');
  cleanups.push(real.close);
  const ingests: NewInboundMessage[] = [];
  const counted: Pick<Store, 'ingest'> = {
    ingest: (message, jobsFor) => {
      ingests.push(message);
      return real.store.ingest(message, jobsFor);
    },
  };
  const reads: Array<{ sObjectType: string; ids: readonly string[] }> = [];
  const notified: Array<{ acked: number; duplicate: number }> = [];
  const metrics: InboundMetrics = { inboundMessage: () => undefined, inboundNotifications: (_source, counts) => void notified.push(counts) };
  const ingest = createCdcIngest({
    store: counted,
    decoder: createChangeDecoder(async (schemaId) => ({ schema_json: schemaJson('Event'), schema_id: schemaId, rpc_id: 'rpc' })),
    reader: {
      read: async (sObjectType, ids) => (reads.push({ sObjectType, ids }), new Map()),
      changedSince: async () => 0,
      ...reader,
    },
    orgId: ORG,
    selfClientId: SELF,
    mapsType: (type) => type === 'Event',
    logger: captureLogs().logger,
    metrics,
  });
  const stored = async () => ({
    events: (await queryRows(real.url, `SELECT dedupe_key FROM inbound_events ORDER BY id`)).map((row) => String(row.dedupe_key)),
    jobs: (await queryRows(real.url, `SELECT kind FROM jobs ORDER BY id`)).map((row) => String(row.kind)),
    cursor: await real.store.pubsub.get(ORG, TOPIC),
  });
  return { ingest, ingests, reads, notified, stored };
}

const hex = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('hex') : null);
const key = (n: number) => `salesforce-cdc:tx-${n}:1:${eventId(n).slice(0, 15)}`;

describeEachEngine('createCdcIngest', (engine) => {
  it('when a batch of changes arrives, then it is one ingest: a notification and a map-event job per change, and the cursor of its last event with the newest commit', async () => {
    // Arrange
    const { ingest, ingests, reads, stored } = await ingestOn(engine);
    const moved = change(3, { changeType: 'UPDATE' }, { StartDateTime: BigInt(Date.parse('2026-03-03T17:00:00.000Z')) });

    // Act
    await ingest.storeEvents(TOPIC, [created(1), created(2), moved]);

    // Assert
    expect(ingests).toHaveLength(1);
    expect(hex(ingests[0]?.cursor?.replayId)).toBe(hex(replayId(3)));
    // Only the mapped type's update is read by REST, in one read for the batch.
    expect(reads).toEqual([{ sObjectType: 'Event', ids: [eventId(3)] }]);
    const { events, jobs, cursor } = await stored();
    expect(events).toEqual([key(1), key(2), key(3)]);
    expect(jobs).toEqual(['map-event', 'map-event', 'map-event']);
    expect(hex(cursor?.replayId)).toBe(hex(replayId(3)));
    expect(cursor?.commitTimestamp).toBe(1_772_000_000_000 + 3_000);
  });

  it("when every change of a batch is ignored (the bridge's own write, a record id wildcard), then nothing is stored but the cursor still moves to its last event", async () => {
    // Arrange
    const { ingest, ingests, stored } = await ingestOn(engine);
    const wildcard = change(5, { changeType: 'UPDATE', recordIds: ['00U*'] }, { Subject: 'Renamed' });

    // Act
    await ingest.storeEvents(TOPIC, [ownChange(4), wildcard]);

    // Assert
    expect(ingests).toHaveLength(1);
    expect(ingests[0]?.events).toEqual([]);
    const { events, jobs, cursor } = await stored();
    expect({ events, jobs }).toEqual({ events: [], jobs: [] });
    expect(hex(cursor?.replayId)).toBe(hex(replayId(5)));
  });

  it('when a batch is delivered again (a resubscribe from an older id), then its changes are found duplicates: nothing stored or queued twice, and the cursor stays at its last event', async () => {
    // Arrange
    const { ingest, notified, stored } = await ingestOn(engine);
    await ingest.storeEvents(TOPIC, [created(6), created(7)]);

    // Act: the same two again, then one new one with one of them repeated.
    await ingest.storeEvents(TOPIC, [created(6), created(7)]);
    await ingest.storeEvents(TOPIC, [created(7), created(8)]);

    // Assert
    expect(notified).toEqual([
      { acked: 2, duplicate: 0 },
      { acked: 0, duplicate: 2 },
      { acked: 1, duplicate: 1 },
    ]);
    const { events, jobs, cursor } = await stored();
    expect(events).toEqual([key(6), key(7), key(8)]);
    expect(jobs).toEqual(['map-event', 'map-event', 'map-event']);
    expect(hex(cursor?.replayId)).toBe(hex(replayId(8)));
  });

  it('when an event cannot be decoded, then it alone is skipped and the batch, cursor included, is stored', async () => {
    // Arrange
    const { ingest, stored } = await ingestOn(engine);
    const garbled = { ...created(10), payload: Buffer.from([0xff, 0xff, 0xff]) };

    // Act
    await ingest.storeEvents(TOPIC, [created(9), garbled]);

    // Assert
    const { events, cursor } = await stored();
    expect(events).toEqual([key(9)]);
    expect(hex(cursor?.replayId)).toBe(hex(replayId(10)));
  });

  it('when no event of a batch can be decoded, then the cursor moves past them but keeps the commit time of the last event read', async () => {
    // Arrange
    const { ingest, stored } = await ingestOn(engine);
    await ingest.storeEvents(TOPIC, [created(14)]);
    const garbled = (n: number) => ({ ...created(n), payload: Buffer.from([0xff, 0xff, 0xff]) });

    // Act
    await ingest.storeEvents(TOPIC, [garbled(15), garbled(16)]);

    // Assert: the commit time still says how old the newest stored change is (and where a backstop would read from).
    const { events, cursor } = await stored();
    expect(events).toEqual([key(14)]);
    expect(hex(cursor?.replayId)).toBe(hex(replayId(16)));
    expect(cursor?.commitTimestamp).toBe(1_772_000_000_000 + 14_000);
  });

  it('when REST fails while a batch is read, then the batch is refused whole: nothing stored and the cursor not moved', async () => {
    // Arrange
    const { ingest, stored } = await ingestOn(engine, {
      read: async () => {
        throw new Error('Salesforce answered 503');
      },
    });
    await ingest.storeEvents(TOPIC, [created(11)]);
    const gap = change(12, { changeType: 'GAP_UPDATE' });

    // Act
    const refused = ingest.storeEvents(TOPIC, [created(13), gap]);

    // Assert
    await expect(refused).rejects.toThrow('Salesforce answered 503');
    const { events, cursor } = await stored();
    expect(events).toEqual([key(11)]);
    expect(hex(cursor?.replayId)).toBe(hex(replayId(11)));
  });
});
