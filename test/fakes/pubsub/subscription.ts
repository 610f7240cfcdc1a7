import { randomUUID } from 'node:crypto';

import * as grpc from '@grpc/grpc-js';

import { corruptedReplayId, failureStatus, replayIdValidationFailed, type StatusError, statusError, type SubscribeFailure } from './errors.ts';
import type { EventLog, StoredEvent } from './event-log.ts';
import type { FetchRequest, FetchResponse } from './messages.ts';

/**
 * One `Subscribe` stream, as Salesforce runs it. States:
 * - opening: waiting for the first FetchRequest, which names the topic and where to start
 *   (LATEST: after the newest id; EARLIEST: the oldest retained event; CUSTOM: strictly after the
 *   given id, which must be retained, else `replayid.corrupted`);
 * - streaming: sends retained events after its cursor in batches, never more than requested and
 *   not yet delivered (requests add up, at most 100 outstanding); while events are requested but
 *   none arrive, an empty keepalive carrying the topic's latest id every `keepaliveMs`; with
 *   nothing requested for `idleCloseMs`, the stream is closed;
 * - silent: a scripted stream that stays open and answers nothing, not even keepalives;
 * - closed: ended by a status, by the client, or by the fake.
 */

/** Salesforce's cap on events requested and not yet delivered. */
export const MAX_OUTSTANDING = 100;

export type SubscribeCall = grpc.ServerDuplexStream<FetchRequest, FetchResponse>;

export interface SubscriptionDeps {
  log: EventLog;
  keepaliveMs: number;
  idleCloseMs: number;
  /** The failure scripted for this subscribe, if one is due (taken on its first request). */
  takeFailure(): SubscribeFailure | undefined;
  record(request: FetchRequest, streamId: string): void;
  closed(stream: Subscription): void;
}

export interface Subscription {
  readonly id: string;
  topic(): string | undefined;
  pending(): number;
  delivered(): number;
  state(): 'opening' | 'streaming' | 'silent' | 'closed';
  /** Sends what is now deliverable (called when an event is published). */
  pump(): void;
  fail(failure: SubscribeFailure): void;
}

export function startSubscription(call: SubscribeCall, deps: SubscriptionDeps): Subscription {
  const rpcId = randomUUID();
  let state: ReturnType<Subscription['state']> = 'opening';
  let topic: string | undefined;
  let cursor: Buffer | undefined;
  let pending = 0;
  let delivered = 0;
  let timer: NodeJS.Timeout | undefined;

  const stopTimer = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const close = (status?: StatusError) => {
    if (state === 'closed') return;
    state = 'closed';
    stopTimer();
    deps.closed(subscription);
    if (call.cancelled) return;
    if (status === undefined) call.end();
    else call.emit('error', status);
  };

  const respond = (events: StoredEvent[], latest: Buffer) => {
    const response: FetchResponse = {
      events: events.map((stored) => ({ event: stored.event, replay_id: stored.replayId })),
      latest_replay_id: latest,
      rpc_id: rpcId,
      pending_num_requested: pending,
    };
    call.write(response);
  };

  // One timer at a time: a keepalive while events are requested, the idle close while none are.
  const arm = () => {
    stopTimer();
    if (state !== 'streaming' || topic === undefined) return;
    const current = topic;
    timer =
      pending > 0
        ? setTimeout(() => {
            respond([], deps.log.latestId(current));
            arm();
          }, deps.keepaliveMs)
        : setTimeout(() => close(), deps.idleCloseMs);
  };

  const pump = () => {
    if (state !== 'streaming' || topic === undefined || pending === 0) return;
    const batch = deps.log.after(topic, cursor, pending);
    const last = batch.at(-1);
    if (last === undefined) return;
    cursor = last.replayId;
    pending -= batch.length;
    delivered += batch.length;
    respond(batch, last.replayId);
    arm();
  };

  const applyFailure = (failure: SubscribeFailure) => {
    if (failure === 'silent') {
      state = 'silent';
      stopTimer();
    } else close(failureStatus(failure, rpcId));
  };

  const open = (request: FetchRequest): StatusError | undefined => {
    const name = request.topic_name;
    if (!deps.log.hasTopic(name)) return statusError(grpc.status.NOT_FOUND, `The topic information for topic ${name} was not found.`, rpcId);
    if (request.replay_preset === 'CUSTOM') {
      if (request.replay_id.length === 0) return replayIdValidationFailed(rpcId);
      if (!deps.log.isRetained(name, request.replay_id)) return corruptedReplayId(rpcId);
      cursor = request.replay_id;
    } else if (request.replay_preset === 'LATEST') cursor = deps.log.latestId(name);
    topic = name;
    state = 'streaming';
    return undefined;
  };

  const onRequest = (request: FetchRequest) => {
    if (state === 'closed') return;
    deps.record(request, rpcId);
    if (state === 'silent') return;
    if (state === 'opening') {
      const failure = deps.takeFailure();
      if (failure !== undefined) return applyFailure(failure);
      const refused = open(request);
      if (refused !== undefined) return close(refused);
    } else if (request.topic_name !== '' && request.topic_name !== topic) {
      return close(statusError(grpc.status.INVALID_ARGUMENT, 'The topic name cannot change within a subscription.', rpcId));
    }
    if (request.num_requested < 0) return close(statusError(grpc.status.INVALID_ARGUMENT, 'num_requested must not be negative.', rpcId));
    pending = Math.min(MAX_OUTSTANDING, pending + request.num_requested);
    arm();
    pump();
  };

  const subscription: Subscription = {
    id: rpcId,
    topic: () => topic,
    pending: () => pending,
    delivered: () => delivered,
    state: () => state,
    pump,
    fail: applyFailure,
  };
  call.on('data', onRequest);
  // A client that half-closes its side is done with the subscription.
  call.on('end', () => close());
  call.on('cancelled', () => close());
  call.on('error', () => close());
  return subscription;
}
