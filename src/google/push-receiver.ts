import { sameSecret } from '../core/constant-time.ts';
import type { Channel, ChannelStore } from '../store/channel-store.ts';
import type { JobQueue } from '../store/types.ts';
import { calendarSyncJob } from './sync-jobs.ts';

/**
 * One Google Calendar push notification (docs/protocols.md §3): an empty POST whose headers name the
 * channel and the resource state. It says only "something changed": the answer is one coalesced
 * calendar-sync job, never a Google call on the request path.
 *
 * Every header read is checked for shape and length before it reaches the store or a log line:
 * a channel id is what Google allows for one (at most 64 of `A-Za-z0-9-_+/=`), a token at most
 * 256 printable characters, a resource id printable, a message number digits.
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

const CHANNEL_ID = /^[A-Za-z0-9_+/=-]{1,64}$/;
const CHANNEL_TOKEN = /^[\x20-\x7E]{1,256}$/;
const RESOURCE_ID = /^[\x21-\x7E]{1,256}$/;
const MESSAGE_NUMBER = /^\d{1,20}$/;

/** The channel and state, or what is wrong with a header's shape; the token and resource id may be absent (compared with the channel's later). */
function checkHeaders(headers: PushHeaders): { channelId: string; state: ResourceState } | { message: string } {
  const { channelId, resourceState, channelToken, resourceId, messageNumber } = headers;
  if (!channelId) return { message: 'X-Goog-Channel-ID is missing' };
  if (!CHANNEL_ID.test(channelId)) return { message: 'X-Goog-Channel-ID must be 1 to 64 characters: letters, digits and - _ + / =' };
  if (!resourceState || !STATES.has(resourceState)) return { message: 'X-Goog-Resource-State must be sync, exists or not_exists' };
  if (channelToken !== undefined && !CHANNEL_TOKEN.test(channelToken)) return { message: 'X-Goog-Channel-Token must be 1 to 256 printable ASCII characters' };
  if (resourceId !== undefined && !RESOURCE_ID.test(resourceId)) return { message: 'X-Goog-Resource-ID must be 1 to 256 printable ASCII characters' };
  if (messageNumber !== undefined && !MESSAGE_NUMBER.test(messageNumber))
    return { message: 'X-Goog-Message-Number must be a whole number of at most 20 digits' };
  return { channelId, state: resourceState as ResourceState };
}

export function createPushReceiver(deps: { channels: Pick<ChannelStore, 'getChannel'>; jobs: Pick<JobQueue, 'enqueue'> }) {
  return async (headers: PushHeaders): Promise<PushOutcome> => {
    const checked = checkHeaders(headers);
    if ('message' in checked) return { kind: 'invalid', message: checked.message };
    const { channelId, state } = checked;

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
