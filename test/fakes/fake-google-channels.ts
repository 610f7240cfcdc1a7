import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { googleError, resourceUri, send } from './fake-google-replies.ts';
import type { FakeChannel } from './fake-google-types.ts';

/** The fake Google's push channels: events.watch opens one, channels.stop ends it, `push` notifies its address as Google does. */

export interface FakeChannels {
  readonly channels: Map<string, FakeChannel>;
  /** Answers events.watch for the calendar. */
  watch(calendarId: string, body: Record<string, unknown>, res: ServerResponse): void;
  /** Answers channels.stop. */
  stop(body: unknown, res: ServerResponse): void;
  push(channelId: string, state: 'sync' | 'exists' | 'not_exists', options?: { token?: string; messageNumber?: number }): Promise<number>;
}

export function createFakeChannels(baseUrl: () => string): FakeChannels {
  const channels = new Map<string, FakeChannel>();
  return {
    channels,
    watch(calendarId, body, res) {
      const id = String(body.id ?? '');
      if (!id || id.length > 64 || body.type !== 'web_hook' || typeof body.address !== 'string' || channels.has(id)) {
        return send(res, 400, googleError(400, 'Invalid channel', 'invalid'));
      }
      const ttlSeconds = Number((body.params as { ttl?: string } | undefined)?.ttl ?? 604_800);
      const resourceId = `res-${createHash('sha256').update(calendarId).digest('hex').slice(0, 16)}`;
      const channel: FakeChannel = {
        id,
        calendarId,
        address: body.address,
        token: body.token as string | undefined,
        resourceId,
        expiration: Date.now() + ttlSeconds * 1000,
        stopped: false,
      };
      channels.set(id, channel);
      send(res, 200, {
        kind: 'api#channel',
        id,
        resourceId,
        resourceUri: resourceUri(baseUrl(), calendarId),
        token: channel.token,
        expiration: String(channel.expiration),
      });
    },
    stop(body, res) {
      const channel = channels.get(String((body as { id?: unknown })?.id));
      if (!channel || channel.resourceId !== (body as { resourceId?: unknown }).resourceId)
        return send(res, 404, googleError(404, 'Channel not found', 'notFound'));
      channel.stopped = true;
      res.writeHead(204).end();
    },
    async push(channelId, state, options = {}) {
      const channel = channels.get(channelId);
      if (!channel) throw new Error(`fake Google has no channel ${channelId}`);
      const token = options.token ?? channel.token;
      const response = await fetch(channel.address, {
        method: 'POST',
        headers: {
          'x-goog-channel-id': channel.id,
          'x-goog-message-number': String(options.messageNumber ?? 1),
          'x-goog-resource-id': channel.resourceId,
          'x-goog-resource-state': state,
          'x-goog-resource-uri': resourceUri(baseUrl(), channel.calendarId),
          'x-goog-channel-expiration': new Date(channel.expiration).toUTCString(),
          ...(token === undefined ? {} : { 'x-goog-channel-token': token }),
        },
      });
      await response.arrayBuffer();
      return response.status;
    },
  };
}
