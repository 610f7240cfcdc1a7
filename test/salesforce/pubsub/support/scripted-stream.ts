import type { FetchRequest, FetchResponse, FetchStream, ReceivedEvent, StreamEnd } from '../../../../src/salesforce/pubsub/stream-types.ts';

/*
 * A Subscribe stream in memory for the subscription's own rules: the test plays the server
 * (responses, ends) and reads every request the subscription wrote. The loopback gRPC fake
 * (test/fakes) proves the same rules over the wire.
 */

export interface ScriptedStream extends FetchStream {
  readonly requests: FetchRequest[];
  readonly cancelled: boolean;
  respond(response: FetchResponse): void;
  end(end: StreamEnd): void;
}

export function scriptedStream(): ScriptedStream {
  const requests: FetchRequest[] = [];
  let onResponse: ((response: FetchResponse) => void) | undefined;
  let onEnd: ((end: StreamEnd) => void) | undefined;
  let cancelled = false;
  return {
    requests,
    get cancelled() {
      return cancelled;
    },
    write: (request) => void requests.push(request),
    onResponse: (listener) => void (onResponse = listener),
    onEnd: (listener) => void (onEnd = listener),
    cancel: () => void (cancelled = true),
    respond: (response) => onResponse?.(response),
    end: (end) => {
      if (!cancelled) onEnd?.(end);
    },
  };
}

/** A 10-byte replay id whose last byte is `n` (and with 0x00 and 0xff bytes inside, as real ones have). */
export const replayId = (n: number): Buffer => Buffer.from([0x00, 0xff, 0, 0, 0, 0, 0, 0, 0x10, n]);

export const events = (from: number, count: number): ReceivedEvent[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `e${from + index}`,
    schemaId: 's1',
    payload: Buffer.from([from + index]),
    replayId: replayId(from + index),
  }));

export const keepaliveAt = (n: number): FetchResponse => ({ events: [], latestReplayId: replayId(n) });

/** Lets queued promise callbacks run. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
