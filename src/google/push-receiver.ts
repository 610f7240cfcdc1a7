import { createHash, timingSafeEqual } from 'node:crypto';
import type { Channel, ChannelStore } from './channel-store.ts';
import { calendarSyncJob } from './sync-jobs.ts';
import type { Store } from '../store/types.ts';

/**
 * One Google Calendar push notification (protocols.md §3): an empty POST whose headers name the
 * channel and the resource state. It says only "something changed": the answer is one coalesced
 * calendar-sync job, never a Google call on the request path.
 */

export type ResourceState = 'sync' | 'exists' | 'not_exists';
const STATES: ReadonlySet<string> = new Set(['sync', 'exists', 'not_exists']);

export interface PushHeaders {
  channelId: string | undefined;
  resourceState: string | undefined;
  channelToken: string | undefined;
  resourceId: string | undefined;
  messageNumber: string | undefined;
}

export type PushOutcome =
  | { kind: 'invalid'; message: string }
  | { kind: 'unknown_channel' }
  | { kind: 'forbidden'; message: string }
  /** `sync` (the channel's hello) or a channel whose sync is already pending: nothing more to do. */
  | { kind: 'acknowledged'; channel?: Channel; state: ResourceState }
  | { kind: 'sync_enqueued'; channel: Channel; state: ResourceState; jobId: number };

// Hashing both sides gives equal lengths, so the comparison is constant time whatever was sent.
const digest = (text: string) => createHash('sha256').update(text).digest();
const sameSecret = (offered: string | undefined, expected: string) => offered !== undefined && timingSafeEqual(digest(offered), digest(expected));

export function createPushReceiver(deps: { channels: Pick<ChannelStore, 'getChannel'>; jobs: Pick<Store, 'enqueue'> }) {
  return async (headers: PushHeaders): Promise<PushOutcome> => {
    const { channelId, resourceState } = headers;
    if (!channelId || channelId.length > 64) return { kind: 'invalid', message: 'X-Goog-Channel-ID is missing or longer than 64 characters' };
    if (!resourceState || !STATES.has(resourceState)) return { kind: 'invalid', message: 'X-Goog-Resource-State must be sync, exists or not_exists' };
    const state = resourceState as ResourceState;

    const channel = await deps.channels.getChannel(channelId);
    if (channel === undefined || channel.stoppedAt !== null) {
      // `sync` may arrive before the watch call has returned and the channel is stored (§3): not an error.
      return channel === undefined && state === 'sync' ? { kind: 'acknowledged', state } : { kind: 'unknown_channel' };
    }
    if (!sameSecret(headers.channelToken, channel.token)) return { kind: 'forbidden', message: 'X-Goog-Channel-Token does not match the channel' };
    if (headers.resourceId !== undefined && channel.resourceId !== null && headers.resourceId !== channel.resourceId) {
      return { kind: 'forbidden', message: 'X-Goog-Resource-ID does not match the channel' };
    }
    if (state === 'sync') return { kind: 'acknowledged', channel, state };

    const [job] = await deps.jobs.enqueue([calendarSyncJob({ calendarId: channel.calendarId, channelId: channel.id, trigger: 'push' })]);
    return { kind: 'sync_enqueued', channel, state, jobId: job!.id };
  };
}
