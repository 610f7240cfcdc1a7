import type { Logger } from '../../core/logger.ts';
import { mapEventJobsFor } from '../../mapping/map-event-job.ts';
import type { InboundMetrics } from '../../metrics/bridge-metrics.ts';
import type { PubSubLease, Store } from '../../store/types.ts';
import { salesforceRecordKey, type StoredNotification } from '../stored-notification.ts';
import type { ChangeDecoder, DecodedChange } from './avro-decoder.ts';
import { type CdcNotification, cdcNotifications } from './cdc-notifications.ts';
import { PubSubDecodeError } from './decode-error.ts';
import type { RecordReader } from './record-reader.ts';
import type { ReceivedEvent } from './stream-types.ts';

/**
 * Stores what a Pub/Sub subscription receives, as Outbound Messages of the same records are stored
 * (source `salesforce`, one StoredNotification per record: the same mapping, re-matching and
 * delivery apply; docs/operations.md, "Salesforce Pub/Sub"). A batch is one ingest: its
 * notifications, their map-event jobs and the batch's last replay id commit together, so a crash
 * keeps both or neither. A batch whose every change was ignored still moves the replay id.
 */

/** The metrics label of everything the subscriber receives. */
export const PUBSUB_SOURCE = 'salesforce-pubsub';

export interface CdcIngestDeps {
  store: Pick<Store, 'ingest'>;
  decoder: ChangeDecoder;
  reader: RecordReader;
  orgId: string;
  /** SALESFORCE_CLIENT_ID: the bridge's own writes are ignored. */
  selfClientId: string | undefined;
  /** Whether the mapping file maps an sObject type (its updates are read whole through REST). */
  mapsType(sObjectType: string): boolean;
  logger: Logger;
  metrics?: InboundMetrics;
  now?: () => number;
  /** The subscription's lease: a replay id is stored only while this instance holds it. */
  lease?: PubSubLease;
}

export interface CdcIngest {
  /** Stores one batch of one topic with its last replay id; rejects (storing nothing) when REST or the store fails. */
  storeEvents(topic: string, events: readonly ReceivedEvent[]): Promise<void>;
  /** Stores records read by SystemModstamp (a backstop, an overflow's re-read) with keys of their own state. */
  storeRecords(topic: string, sObjectType: string, records: ReadonlyArray<Record<string, string>>): Promise<void>;
}

// An overflow is re-read from a little before its commit: the transaction's records were stamped as it ran.
const OVERFLOW_LEAD_MS = 60_000;
// Records read again are stored in ingests of this many: one transaction stays short.
const RECORDS_PER_INGEST = 500;

const jobsFor = mapEventJobsFor(salesforceRecordKey);

export function createCdcIngest(deps: CdcIngestDeps): CdcIngest {
  const now = deps.now ?? Date.now;
  const context = (topic: string) => ({ orgId: deps.orgId, topic, selfClientId: deps.selfClientId, mapsType: deps.mapsType });

  /** A record read through REST as the notification its state is: the key names the state, so a re-read stores nothing twice. */
  const recordNotification = (topic: string, sObjectType: string, record: Record<string, string>) => {
    const id = record.Id ?? '';
    const stamp = record.SystemModstamp ?? '';
    const notification: StoredNotification = {
      version: 1,
      organizationId: deps.orgId,
      actionId: topic,
      notificationId: `backstop:${id}:${stamp}`,
      sObjectType,
      fields: record,
    };
    return { dedupeKey: `salesforce-backstop:${id.slice(0, 15)}:${stamp}`, parsedPayload: notification };
  };

  /** The notifications marked `fetch`, with their record as REST reads it now merged over the event's fields. */
  async function withFetched(notifications: CdcNotification[]): Promise<StoredNotification[]> {
    const byType = new Map<string, string[]>();
    for (const { notification, fetch } of notifications) {
      const id = notification.fields.Id;
      if (fetch && id !== undefined) byType.set(notification.sObjectType, [...(byType.get(notification.sObjectType) ?? []), id]);
    }
    const read = new Map<string, Map<string, Record<string, string>>>();
    for (const [type, ids] of byType) read.set(type, await deps.reader.read(type, ids));
    return notifications.map(({ notification, fetch }) => {
      const found = fetch ? read.get(notification.sObjectType)?.get((notification.fields.Id ?? '').slice(0, 15)) : undefined;
      // A record deleted since keeps what the event said of it.
      return found === undefined ? notification : { ...notification, fields: { ...notification.fields, ...found } };
    });
  }

  async function decodeAll(events: readonly ReceivedEvent[]): Promise<DecodedChange[]> {
    const decoded: DecodedChange[] = [];
    for (const event of events) {
      try {
        decoded.push(await deps.decoder.decode({ schema_id: event.schemaId, payload: event.payload }));
      } catch (error) {
        // An event Salesforce sent malformed would fail every retry: it is skipped, loudly. A schema fetch that failed is retried.
        if (!(error instanceof PubSubDecodeError)) throw error;
        deps.logger.error('a Change Data Capture event could not be decoded and is skipped', { eventId: event.id, code: error.code, error: error.message });
        deps.metrics?.inboundNotificationsIgnored?.(PUBSUB_SOURCE, 'undecodable', 1);
      }
    }
    return decoded;
  }

  async function ingest(
    topic: string,
    rawPayload: unknown,
    events: Array<{ dedupeKey: string; parsedPayload: unknown }>,
    cursor?: ReceivedEvent,
    commit?: number,
  ) {
    const at = now();
    const result = await deps.store.ingest(
      {
        source: 'salesforce',
        senderId: deps.orgId,
        rawPayload: JSON.stringify(rawPayload),
        events,
        // A batch none of whose events could be decoded has no commit time: the stored one stays.
        ...(cursor === undefined
          ? {}
          : {
              cursor: {
                orgId: deps.orgId,
                topic,
                replayId: cursor.replayId,
                ...(commit === undefined ? {} : { commitTimestamp: commit }),
                at,
                ...(deps.lease ? { lease: deps.lease } : {}),
              },
            }),
      },
      jobsFor,
    );
    deps.metrics?.inboundNotifications(PUBSUB_SOURCE, { acked: result.created.length, duplicate: result.duplicates.length });
  }

  async function storeRecords(topic: string, sObjectType: string, records: ReadonlyArray<Record<string, string>>) {
    for (let start = 0; start < records.length; start += RECORDS_PER_INGEST) {
      const chunk = records.slice(start, start + RECORDS_PER_INGEST);
      await ingest(
        topic,
        { topic, backstop: sObjectType, records: chunk },
        chunk.map((record) => recordNotification(topic, sObjectType, record)),
      );
    }
  }

  /**
   * An overflow's entity read again by SystemModstamp, stored page by page before the batch that
   * carries the overflow's replay id: however many records it holds, no transaction grows with it,
   * and a batch that then fails is read again (the records' keys store nothing twice).
   */
  async function rereadOverflow(topic: string, entityName: string, commitTimestamp: number) {
    const records = await deps.reader.changedSince(entityName, commitTimestamp - OVERFLOW_LEAD_MS, (page) => storeRecords(topic, entityName, page));
    deps.logger.info('a Change Data Capture overflow: the entity was read again by SystemModstamp', { topic, entityName, records });
  }

  return {
    async storeEvents(topic, events) {
      const last = events.at(-1);
      if (last === undefined) return;
      deps.metrics?.inboundEventsReceived?.(PUBSUB_SOURCE, events.length);
      const changes = await decodeAll(events);
      const notifications: CdcNotification[] = [];
      for (const change of changes) {
        const outcome = cdcNotifications(change, context(topic));
        if (outcome.kind === 'ignored') {
          deps.metrics?.inboundNotificationsIgnored?.(PUBSUB_SOURCE, outcome.reason.includes('changeOrigin') ? 'own_change' : 'no_record', 1);
          deps.logger.debug('a Change Data Capture event is ignored', { topic, reason: outcome.reason });
        } else if (outcome.kind === 'overflow') await rereadOverflow(topic, outcome.entityName, outcome.commitTimestamp);
        else notifications.push(...outcome.notifications);
      }
      const stored = await withFetched(notifications);
      const commit = changes.reduce<number | undefined>((newest, change) => Math.max(newest ?? 0, change.header.commitTimestamp), undefined);
      await ingest(
        topic,
        { topic, changes },
        stored.map((notification, index) => ({ dedupeKey: notifications[index]!.dedupeKey, parsedPayload: notification })),
        last,
        commit,
      );
    },
    storeRecords,
  };
}
