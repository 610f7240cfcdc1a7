import { z } from 'zod';

import type { Config } from '../../core/config.ts';
import { parseDuration } from '../../core/durations.ts';
import { int, list, type SettingsOf } from '../../core/setting-kinds.ts';

/**
 * Change Data Capture over Salesforce's Pub/Sub API (docs/operations.md, "Salesforce Pub/Sub"):
 * whether it runs, which channels, where, how many events a request asks for, where a first
 * subscription starts and how often the SOQL backstop runs. It signs in with the lookups'
 * connected app (src/salesforce/settings.ts), so turning it on needs their credentials.
 */

export const DEFAULT_PUBSUB_TOPICS = [
  '/data/OpportunityChangeEvent',
  '/data/EventChangeEvent',
  '/data/OpportunityContactRoleChangeEvent',
  '/data/ContactChangeEvent',
  '/data/LeadChangeEvent',
] as const;

// Channel names are case-sensitive: the standard channel of all selected objects, one object's
// channel (custom objects end in __ChangeEvent, which the first form covers), or a custom channel.
const CDC_CHANNEL = /^\/data\/(?:ChangeEvents|[A-Za-z][A-Za-z0-9_]*ChangeEvent|[A-Za-z][A-Za-z0-9_]*__chn)$/;
const CHANNEL_MESSAGE =
  'expected a Change Data Capture channel: /data/<Object>ChangeEvent (such as /data/OpportunityChangeEvent), /data/ChangeEvents, or a custom channel /data/<Name>__chn';

// A backstop more often than this would spend the org's API requests on what the stream delivers.
const BACKSTOP_MIN_MS = 60_000;

export const pubsubSettings = {
  SALESFORCE_PUBSUB: z
    .enum(['off', 'on'], { error: 'expected on or off' })
    .default('off')
    .transform((value) => value === 'on')
    .meta({
      description: "Subscribe to Change Data Capture events over Salesforce's Pub/Sub API: on or off; on needs the Salesforce lookup credentials",
      example: 'on',
    }),
  SALESFORCE_PUBSUB_TOPICS: z
    .string()
    .default(DEFAULT_PUBSUB_TOPICS.join(','))
    .transform((text, ctx) => {
      const topics = list(text);
      // Name the wrong entry: in a list of five, the whole value does not say which one.
      for (const topic of topics.filter((entry) => !CDC_CHANNEL.test(entry)))
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(topic)}: ${CHANNEL_MESSAGE}` });
      // A channel named twice would be subscribed twice.
      return [...new Set(topics)];
    })
    .meta({
      description:
        'Change Data Capture channels to subscribe to (comma-separated, case-sensitive): /data/<Object>ChangeEvent, /data/ChangeEvents or /data/<Name>__chn',
      example: '/data/OpportunityChangeEvent,/data/Meetings__chn',
    }),
  SALESFORCE_PUBSUB_ENDPOINT: z
    .string()
    .regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, 'expected host:port such as api.pubsub.salesforce.com:7443')
    .default('api.pubsub.salesforce.com:7443')
    .meta({ description: "The Pub/Sub API's gRPC endpoint (host:port, TLS)", example: 'api.pubsub.salesforce.com:7443' }),
  SALESFORCE_PUBSUB_BATCH: int(100, 1, 100, {
    description: 'Events asked for per fetch request (the Pub/Sub API allows at most 100 outstanding)',
    example: '100',
  }),
  SALESFORCE_PUBSUB_START: z.enum(['LATEST', 'EARLIEST'], { error: 'expected LATEST or EARLIEST' }).default('LATEST').meta({
    description: 'Where a topic with no stored replay id starts: LATEST (new events only) or EARLIEST (the retained 72 hours)',
    example: 'LATEST',
  }),
  SALESFORCE_PUBSUB_BACKSTOP: z
    .string()
    .default('1h')
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined || ms < BACKSTOP_MIN_MS) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration of at least 1m such as 1h' });
        return z.NEVER;
      }
      return ms;
    })
    .meta({
      description: 'How often the SystemModstamp backstop reads what changed while Pub/Sub runs (events the stream may have missed)',
      example: '1h',
    }),
};

declare module '../../core/config.ts' {
  interface Config extends SettingsOf<typeof pubsubSettings> {}
}

const CREDENTIALS =
  'SALESFORCE_CLIENT_ID with SALESFORCE_CLIENT_SECRET (client credentials), or with SALESFORCE_USERNAME and SALESFORCE_PRIVATE_KEY or SALESFORCE_PRIVATE_KEY_FILE (JWT bearer)';

/** Pub/Sub signs in as the lookups do: on without their credentials, or without a channel, cannot run. */
export function pubsubSettingProblems(config: Config): string[] {
  if (!config.SALESFORCE_PUBSUB) return [];
  const problems: string[] = [];
  const jwt = config.SALESFORCE_USERNAME !== undefined && (config.SALESFORCE_PRIVATE_KEY !== undefined || config.SALESFORCE_PRIVATE_KEY_FILE !== undefined);
  const clientCredentials = config.SALESFORCE_CLIENT_SECRET !== undefined;
  if (config.SALESFORCE_CLIENT_ID === undefined || !(jwt || clientCredentials)) {
    problems.push(`SALESFORCE_PUBSUB: on needs the Salesforce lookup credentials, which are not all set: ${CREDENTIALS}`);
  }
  if (config.SALESFORCE_PUBSUB_TOPICS.length === 0) {
    problems.push(
      `SALESFORCE_PUBSUB_TOPICS: SALESFORCE_PUBSUB=on needs at least one channel; it is empty (example: SALESFORCE_PUBSUB_TOPICS=${DEFAULT_PUBSUB_TOPICS[0]})`,
    );
  }
  return problems;
}
