import { pubsubStatusSchema } from './pubsub-schemas.ts';
import { emptyQuerySchema } from './request-schemas.ts';
import { defineRoute } from './route-spec.ts';

/** Where each Salesforce Pub/Sub subscription stands (routes.ts lists it with the rest). */
export const PUBSUB_ROUTES = {
  getPubSub: defineRoute({
    method: 'get',
    path: '/admin/pubsub',
    operationId: 'getPubSub',
    mutating: false,
    summary: "Salesforce Pub/Sub (Change Data Capture): whether SALESFORCE_PUBSUB is on, and each subscription's state, replay id and errors as stored",
    description:
      'One entry per stored (org, topic) cursor, by org id then topic: its state, the replay id it resumes after (hex of the stored bytes), how old the newest stored event is (replayIdAgeSeconds, from its commitTimestamp), the last event, keepalive and error, the resubscribes counted and the instance holding it. Read from the store, so every instance answers the same.',
    query: emptyQuerySchema,
    success: { status: 200, description: 'The Pub/Sub state', schema: pubsubStatusSchema },
  }),
};
