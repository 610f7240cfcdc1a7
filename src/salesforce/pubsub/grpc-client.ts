import * as grpc from '@grpc/grpc-js';

import { pubSubService } from './proto.ts';
import type { FetchRequest, FetchResponse, SchemaInfo, TopicInfo } from './pubsub-messages.ts';
import { channelCredentials, trustFromEnvironment, type TrustOptions } from './trust.ts';

/** What every call presents (docs/protocols.md, Pub/Sub): a session token and the org it belongs to. */
export interface PubSubAuth {
  accessToken: string;
  /** The org's instance URL, `https://<my domain>.my.salesforce.com`. */
  instanceUrl: string;
  /** The org id. */
  tenantId: string;
}

export interface PubSubClientOptions {
  /** `host:port`, for example `api.pubsub.salesforce.com:7443`. */
  endpoint: string;
  /** Asked before every call, so a refreshed token is used from the next call on. */
  auth: () => PubSubAuth | Promise<PubSubAuth>;
  trust?: TrustOptions;
  /** Deadline of GetSchema and GetTopic; 30 s when not given. */
  unaryTimeoutMs?: number;
}

export type SubscribeStream = grpc.ClientDuplexStream<FetchRequest, FetchResponse>;

export interface PubSubClient {
  /**
   * Opens a Subscribe stream; the caller writes FetchRequests and reads FetchResponses. The stream
   * ends with an 'error' event on every failure, its own cancel() included (CANCELLED): listen for it.
   */
  subscribe(): SubscribeStream;
  getSchema(schemaId: string): Promise<SchemaInfo>;
  getTopic(topicName: string): Promise<TopicInfo>;
  close(): void;
}

/**
 * Channel options for streams that stay open for hours and may be silent for minutes
 * (docs/protocols.md, Pub/Sub).
 * Salesforce's server sends an empty batch within 270 s while events are requested, which is
 * traffic of its own; client pings are only a backstop against a connection that died quietly.
 * gRPC servers written in Java refuse pings more often than every 5 minutes by default and close
 * the connection with `too_many_pings`, so pings are 5 minutes apart and only while a call is open.
 * A response may hold up to 100 events of up to 1 MB each (larger ones arrive as gap events), more
 * than grpc-js's 4 MB default: a lower cap would fail the same batch again on every resubscribe.
 */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 300_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.keepalive_permit_without_calls': 0,
  'grpc.max_receive_message_length': 110 * 1024 * 1024,
};

type UnaryMethod<Request, Reply> = (
  request: Request,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, reply?: Reply) => void,
) => grpc.ClientUnaryCall;

interface RawPubSubClient extends grpc.Client {
  Subscribe: () => SubscribeStream;
  GetSchema: UnaryMethod<{ schema_id: string }, SchemaInfo>;
  GetTopic: UnaryMethod<{ topic_name: string }, TopicInfo>;
}

export function createPubSubClient(options: PubSubClientOptions): PubSubClient {
  const credentials = grpc.credentials.combineChannelCredentials(channelCredentials(options.trust ?? trustFromEnvironment()), authCredentials(options.auth));
  const Service = pubSubService();
  const raw = new Service(options.endpoint, credentials, CHANNEL_OPTIONS) as unknown as RawPubSubClient;
  const timeoutMs = options.unaryTimeoutMs ?? 30_000;
  const unary = <Request, Reply>(method: UnaryMethod<Request, Reply>, request: Request): Promise<Reply> =>
    new Promise((resolve, reject) => {
      method.call(raw, request, { deadline: Date.now() + timeoutMs }, (error, reply) => {
        if (error) reject(error);
        else resolve(reply as Reply);
      });
    });
  return {
    subscribe: () => raw.Subscribe(),
    getSchema: (schemaId) => unary(raw.GetSchema, { schema_id: schemaId }),
    getTopic: (topicName) => unary(raw.GetTopic, { topic_name: topicName }),
    close: () => raw.close(),
  };
}

/** The `error-code` trailer Salesforce puts on a failed call (`sfdc.platform.eventbus.grpc…`), if any. */
export function pubSubErrorCode(error: unknown): string | undefined {
  const metadata = (error as Partial<grpc.ServiceError> | null)?.metadata;
  if (!(metadata instanceof grpc.Metadata)) return undefined;
  const value = metadata.get('error-code')[0];
  return typeof value === 'string' ? value : value?.toString('utf8');
}

// Per-call metadata: the generator runs before each call, so the token is whatever auth() says now.
function authCredentials(auth: PubSubClientOptions['auth']): grpc.CallCredentials {
  return grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    Promise.resolve()
      .then(auth)
      .then(
        ({ accessToken, instanceUrl, tenantId }) => {
          const metadata = new grpc.Metadata();
          metadata.set('accesstoken', accessToken);
          metadata.set('instanceurl', instanceUrl);
          metadata.set('tenantid', tenantId);
          callback(null, metadata);
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
  });
}
