import { afterEach } from 'vitest';

import { createFakePubSub, type FakePubSub, type FakePubSubOptions } from './fake-pubsub.ts';
import { type TestClient, testClient } from './pubsub/test-client.ts';

export interface OpenedFake {
  fake: FakePubSub;
  /** A plain grpc-js client signed in with the fake's default session. */
  client: TestClient;
}

/** Opens a fake Pub/Sub server with a client per call; both are closed after each test of the file. */
export function fakePubSubPerTest(): (options?: FakePubSubOptions) => Promise<OpenedFake> {
  const opened: OpenedFake[] = [];
  afterEach(async () => {
    for (const { fake, client } of opened.splice(0)) {
      client.close();
      await fake.close();
    }
  });
  return async (options = {}) => {
    const fake = createFakePubSub(options);
    const address = await fake.start();
    const client = testClient(address, { accesstoken: 'valid-token', instanceurl: fake.instanceUrl, tenantid: fake.orgId });
    opened.push({ fake, client });
    return { fake, client };
  };
}
