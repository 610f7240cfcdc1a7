import { z } from 'zod';

import { PUBSUB_STATES } from '../store/types.ts';

const time = z.string().meta({ description: 'ISO 8601, UTC' });

const subscriptionSchema = z.object({
  orgId: z.string(),
  topic: z.string().meta({ description: 'The Change Data Capture channel: /data/OpportunityChangeEvent' }),
  state: z.enum(PUBSUB_STATES).meta({
    description:
      'subscribed: the stream is open; resubscribing: it closed or failed and is opened again; backstop: the stored replay id was refused and the SOQL backstop reads what changed; stopped: no instance subscribes',
  }),
  replayId: z
    .string()
    .nullable()
    .meta({ description: 'The replay id the subscription resumes after, as stored (raw bytes) in hex; null before the first event or keepalive' }),
  replayIdAgeSeconds: z
    .int()
    .nullable()
    .meta({ description: "Now minus the newest stored event's commitTimestamp (a keepalive does not reset it); null before the first event" }),
  commitTimestamp: time.nullable().meta({ description: "The newest stored event's commitTimestamp" }),
  lastEventAt: time.nullable().meta({ description: 'When the newest events were stored (with their replay id)' }),
  lastKeepaliveAt: time.nullable().meta({ description: 'When the newest keepalive replay id was stored' }),
  lastError: z.string().nullable(),
  lastErrorAt: time.nullable(),
  resubscribes: z.int().meta({ description: 'How many times the subscription went resubscribing' }),
  holder: z.string().nullable().meta({ description: 'The instance that noted the state last (it holds the subscription lease), if any' }),
  updatedAt: time,
});

export const pubsubStatusSchema = z.object({
  enabled: z.boolean().meta({ description: 'SALESFORCE_PUBSUB=on on the instance that answers' }),
  subscriptions: z.array(subscriptionSchema).meta({ description: 'Every stored subscription cursor, by org id then topic' }),
});

export type PubSubStatus = z.infer<typeof pubsubStatusSchema>;
