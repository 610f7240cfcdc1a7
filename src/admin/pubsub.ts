import type { PubSub, PubSubCursor } from '../store/types.ts';
import type { PubSubStatus } from './pubsub-schemas.ts';
import { iso } from './views.ts';

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

function subscriptionView(cursor: PubSubCursor, now: number): PubSubStatus['subscriptions'][number] {
  return {
    orgId: cursor.orgId,
    topic: cursor.topic,
    state: cursor.state,
    // Hex shows every byte as stored: a replay id is opaque, and a number would lose bytes of it.
    replayId: cursor.replayId === null ? null : Buffer.from(cursor.replayId).toString('hex'),
    replayIdAgeSeconds: cursor.commitTimestamp === null ? null : Math.max(0, Math.floor((now - cursor.commitTimestamp) / 1000)),
    commitTimestamp: isoOrNull(cursor.commitTimestamp),
    lastEventAt: isoOrNull(cursor.lastEventAt),
    lastKeepaliveAt: isoOrNull(cursor.lastKeepaliveAt),
    lastError: cursor.lastError,
    lastErrorAt: isoOrNull(cursor.lastErrorAt),
    resubscribes: cursor.resubscribes,
    holder: cursor.holder,
    updatedAt: iso(cursor.updatedAt),
  };
}

/** GET /admin/pubsub: the stored cursors of every subscription, and whether this instance has Pub/Sub on. */
export async function pubsubStatus(store: PubSub, enabled: boolean, now = Date.now()): Promise<PubSubStatus> {
  const cursors = await store.pubsub.list();
  return { enabled, subscriptions: cursors.map((cursor) => subscriptionView(cursor, now)) };
}
