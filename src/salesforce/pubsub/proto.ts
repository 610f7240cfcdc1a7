import { fileURLToPath } from 'node:url';

import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** The vendored Salesforce proto, read at run time beside this module (it ships in the image with src/). */
export const PUBSUB_PROTO_FILE = fileURLToPath(new URL('./pubsub_api.proto', import.meta.url));

/**
 * How messages are decoded (the shapes in pubsub-messages.ts):
 * - `keepCase`: field names stay as the proto and Salesforce's pages spell them (`replay_id`,
 *   `num_requested`), so a field can be looked up in either without translating it;
 * - `bytes: Buffer`: replay ids are opaque bytes of varying length and are stored as received;
 * - `longs: String`: the one int64 (`process_time`) stays exact; a JS number would round it;
 * - `enums: String`: `'CUSTOM'` reads better in logs and tests than `2`, and the encoder accepts names;
 * - `defaults`: every field is present, so an empty keepalive batch still has `events: []` and a
 *   `latest_replay_id` Buffer.
 */
const LOAD_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
};

let cached: grpc.ServiceClientConstructor | undefined;

/** The `eventbus.v1.PubSub` service constructor (its `.service` is what a test server implements). */
export function pubSubService(): grpc.ServiceClientConstructor {
  if (cached) return cached;
  const definition = protoLoader.loadSync(PUBSUB_PROTO_FILE, LOAD_OPTIONS);
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    eventbus: { v1: { PubSub: grpc.ServiceClientConstructor } };
  };
  cached = loaded.eventbus.v1.PubSub;
  return cached;
}
