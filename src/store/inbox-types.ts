import type { PubSubCursorAdvance } from './pubsub-types.ts';

/** The inbox's records: a message as received, the events in it, what ingesting them gave. */

export type EventState = 'received' | 'mapped' | 'skipped' | 'failed';

export interface NewInboundMessage {
  source: string;
  /** Who sent it: Salesforce org id, Google channel id, webhook id… */
  senderId?: string;
  /** The payload exactly as received (XML text, JSON text, or the headers of an empty push). */
  rawPayload: string;
  receivedAt?: number;
  events: Array<{ dedupeKey: string; parsedPayload: unknown }>;
  /**
   * Pub/Sub only: the replay id of these events, stored in the same transaction, so a crash never
   * keeps the events without their replay id or the replay id without its events. Stored when
   * every event is a duplicate too (a redelivery after a reconnect moves the cursor all the same).
   */
  cursor?: PubSubCursorAdvance;
}

export interface InboundEvent {
  id: number;
  messageId: number;
  source: string;
  senderId: string | null;
  dedupeKey: string;
  parsedPayload: unknown;
  receivedAt: number;
  state: EventState;
  stateReason: string | null;
}

export interface IngestResult {
  created: InboundEvent[];
  /** Dedupe keys that were already stored: acknowledged again, not processed again. */
  duplicates: string[];
}

export interface InboundMessage {
  id: number;
  source: string;
  senderId: string | null;
  rawPayload: string;
  receivedAt: number;
}
