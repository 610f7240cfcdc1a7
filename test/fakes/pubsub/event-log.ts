import type { ProducerEvent } from './messages.ts';
import { compareReplayIds, type ReplayIds } from './replay-ids.ts';

/**
 * The event bus behind the fake: per topic, the events committed in replay-id order, each kept for
 * the retention window (Salesforce: 72 hours) and then dropped, which makes its replay id unknown.
 * A topic is born with a marker id (where LATEST starts when nothing was ever published) that ages
 * out like an event.
 */

export interface StoredEvent {
  replayId: Buffer;
  committedAt: number;
  event: ProducerEvent;
}

interface TopicLog {
  marker: { replayId: Buffer; committedAt: number };
  events: StoredEvent[];
  latest: Buffer;
}

export interface EventLogOptions {
  now: () => number;
  retentionMs: number;
  replayIds: ReplayIds;
}

export interface EventLog {
  addTopic(name: string): void;
  hasTopic(name: string): boolean;
  append(topic: string, event: ProducerEvent): StoredEvent;
  /** Retained events strictly after `cursor` (all retained ones without a cursor), oldest first. */
  after(topic: string, cursor: Buffer | undefined, limit: number): StoredEvent[];
  /** The newest id the topic has issued, retained or not (what keepalives carry). */
  latestId(topic: string): Buffer;
  /** Whether a subscription may start after this id: the topic issued it and it is still retained. */
  isRetained(topic: string, replayId: Buffer): boolean;
  /** Every retained event, oldest first. */
  retained(topic: string): StoredEvent[];
}

export function createEventLog(options: EventLogOptions): EventLog {
  const topics = new Map<string, TopicLog>();

  const live = (committedAt: number) => options.now() - committedAt <= options.retentionMs;
  const log = (name: string): TopicLog => {
    const topic = topics.get(name);
    if (topic === undefined) throw new Error(`no topic ${name}`);
    // Retention runs on every read: what fell out of the window is gone for good.
    const firstLive = topic.events.findIndex((event) => live(event.committedAt));
    topic.events.splice(0, firstLive < 0 ? topic.events.length : firstLive);
    return topic;
  };

  return {
    addTopic(name) {
      if (topics.has(name)) return;
      const replayId = options.replayIds.next();
      topics.set(name, { marker: { replayId, committedAt: options.now() }, events: [], latest: replayId });
    },
    hasTopic: (name) => topics.has(name),
    append(topic, event) {
      const stored = { replayId: options.replayIds.next(), committedAt: options.now(), event };
      const target = log(topic);
      target.events.push(stored);
      target.latest = stored.replayId;
      return stored;
    },
    after(topic, cursor, limit) {
      const events = log(topic).events;
      const start = cursor === undefined ? 0 : events.findIndex((event) => compareReplayIds(event.replayId, cursor) > 0);
      return start < 0 ? [] : events.slice(start, start + limit);
    },
    latestId: (topic) => log(topic).latest,
    isRetained(topic, replayId) {
      const { events, marker } = log(topic);
      if (marker.replayId.equals(replayId)) return live(marker.committedAt);
      return events.some((event) => event.replayId.equals(replayId));
    },
    retained: (topic) => [...log(topic).events],
  };
}
