import * as grpc from '@grpc/grpc-js';

import { pubSubErrorCode, type SubscribeStream } from './grpc-client.ts';
import type { FetchResponse } from './pubsub-messages.ts';
import type { FetchStream, StreamEnd } from './stream-types.ts';

/**
 * A generated Subscribe stream (snake_case messages, src/salesforce/pubsub/pubsub-messages.ts) as
 * the subscription reads it (stream-types.ts). The stream's end is reported once: its 'error' with
 * the gRPC status and Salesforce's `error-code` trailer, or a close; the CANCELLED that grpc-js
 * emits for the stream's own cancel() is no end the server caused, so it is not reported.
 */
export function fetchStreamOf(stream: SubscribeStream): FetchStream {
  let cancelled = false;
  let ended = false;
  const endListeners: Array<(end: StreamEnd) => void> = [];
  const end = (result: StreamEnd) => {
    if (ended) return;
    ended = true;
    for (const listener of endListeners) listener(result);
  };
  stream.on('error', (error: Partial<grpc.ServiceError>) => {
    if (cancelled && error.code === grpc.status.CANCELLED) return;
    const errorCode = pubSubErrorCode(error);
    end({
      kind: 'error',
      code: error.code ?? grpc.status.UNKNOWN,
      ...(errorCode === undefined ? {} : { errorCode }),
      message: error.details ?? error.message ?? 'the Subscribe stream failed',
    });
  });
  stream.on('end', () => {
    if (!cancelled) end({ kind: 'closed' });
  });
  return {
    write(request) {
      if (cancelled || ended) return;
      stream.write({
        topic_name: request.topicName,
        num_requested: request.numRequested,
        ...(request.replayPreset === undefined ? {} : { replay_preset: request.replayPreset }),
        ...(request.replayId === undefined ? {} : { replay_id: request.replayId }),
      });
    },
    onResponse(listener) {
      stream.on('data', (message: FetchResponse) => {
        listener({
          events: message.events.flatMap((consumed) =>
            consumed.event === null
              ? []
              : [{ id: consumed.event.id, schemaId: consumed.event.schema_id, payload: consumed.event.payload, replayId: consumed.replay_id }],
          ),
          latestReplayId: message.latest_replay_id,
          pendingNumRequested: message.pending_num_requested,
        });
      });
    },
    onEnd(listener) {
      endListeners.push(listener);
    },
    cancel() {
      if (cancelled) return;
      cancelled = true;
      stream.cancel();
    },
  };
}
