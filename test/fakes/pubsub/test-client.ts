import { readFileSync } from 'node:fs';

import * as grpc from '@grpc/grpc-js';

import { waitFor } from '../../support/wait-for.ts';
import { TEST_CERT_FILE } from '../trust-test-ca.ts';
import { type FetchRequest, type FetchResponse, loadPubSubService, type SchemaInfo, type TopicInfo } from './messages.ts';

/**
 * A plain grpc-js client of the fake, loaded from the vendored proto and trusting only the test
 * certificate: what the fake's own tests speak to it with, so they check the wire, not a wrapper.
 */

export interface Session {
  accesstoken: string;
  instanceurl: string;
  tenantid: string;
}

export interface StreamStatus {
  code: grpc.status;
  details: string;
  errorCode: string | undefined;
}

export interface TestStream {
  responses: FetchResponse[];
  /** Every event received, in order. */
  events(): FetchResponse['events'];
  request(request: Partial<FetchRequest>): void;
  /** Resolves with the stream's final status. */
  status: Promise<StreamStatus>;
  /** Whether the stream has ended (so `status` is settled). */
  ended(): boolean;
  cancel(): void;
}

type Client = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

export interface TestClient {
  subscribe(first: Partial<FetchRequest>, session?: Partial<Session>): TestStream;
  getSchema(schemaId: string, session?: Partial<Session>): Promise<SchemaInfo>;
  getTopic(topicName: string, session?: Partial<Session>): Promise<TopicInfo>;
  close(): void;
}

const toStatus = (status: grpc.StatusObject): StreamStatus => {
  const errorCode = status.metadata?.get('error-code')[0];
  return { code: status.code, details: status.details, errorCode: typeof errorCode === 'string' ? errorCode : undefined };
};

export function testClient(address: string, session: Session): TestClient {
  const { Client } = loadPubSubService();
  // The certificate also names localhost: checking that name spares Node's warning about an IP as TLS server name.
  const client = new Client(address, grpc.credentials.createSsl(readFileSync(TEST_CERT_FILE)), { 'grpc.ssl_target_name_override': 'localhost' }) as Client;
  const metadata = (overrides: Partial<Session> = {}) => {
    const result = new grpc.Metadata();
    for (const [key, value] of Object.entries({ ...session, ...overrides })) result.set(key, value);
    return result;
  };
  const unary = <Reply>(method: string, request: object, overrides?: Partial<Session>) =>
    new Promise<Reply>((resolve, reject) => {
      client[method]?.(request, metadata(overrides), (error: grpc.ServiceError | null, reply: Reply) => (error ? reject(error) : resolve(reply)));
    });

  return {
    subscribe(first, overrides) {
      const call = client.Subscribe?.(metadata(overrides)) as grpc.ClientDuplexStream<Partial<FetchRequest>, FetchResponse>;
      const responses: FetchResponse[] = [];
      let ended = false;
      call.on('data', (response: FetchResponse) => responses.push(response));
      // The status event carries the outcome; 'error' repeats it for non-OK statuses.
      call.on('error', () => undefined);
      const status = new Promise<StreamStatus>((resolve) =>
        call.on('status', (received: grpc.StatusObject) => {
          ended = true;
          resolve(toStatus(received));
        }),
      );
      call.write(first);
      return {
        responses,
        events: () => responses.flatMap((response) => response.events),
        request: (request) => call.write(request),
        status,
        ended: () => ended,
        cancel: () => call.cancel(),
      };
    },
    getSchema: (schemaId, overrides) => unary<SchemaInfo>('GetSchema', { schema_id: schemaId }, overrides),
    getTopic: (topicName, overrides) => unary<TopicInfo>('GetTopic', { topic_name: topicName }, overrides),
    close: () => client.close(),
  };
}

/** Waits until a stream has received `count` events in all. */
export async function eventsArrive(stream: TestStream, count: number): Promise<void> {
  await waitFor(`${count} events`, () => stream.events().length >= count, 5_000, { lastSeen: () => `${stream.events().length} received` });
}

/** Whatever arrives within `ms` (for asserting that nothing more does). */
export const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the fake has handled `count` FetchRequests in all (a stream is set up once its first is handled). */
export async function requestsHandled(fake: { fetchRequests: readonly unknown[] }, count: number): Promise<void> {
  await waitFor(`${count} fetch requests`, () => fake.fetchRequests.length >= count, 5_000, { lastSeen: () => `${fake.fetchRequests.length} handled` });
}
