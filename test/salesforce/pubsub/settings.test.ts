import { describe, expect, it } from 'vitest';

import { DEFAULT_PUBSUB_TOPICS } from '../../../src/salesforce/pubsub/settings.ts';
import { ConfigError, parseConfig } from '../../../src/settings.ts';

/* The Pub/Sub settings through the real config schema: their defaults, the checks of each, and what SALESFORCE_PUBSUB=on needs. */

const CLIENT_CREDENTIALS = { SALESFORCE_CLIENT_ID: '3MVG9-pubsub', SALESFORCE_CLIENT_SECRET: 'pubsub-secret-value' };

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('Salesforce Pub/Sub settings', () => {
  it('when none is set, then Pub/Sub is off with the five default channels, the public endpoint, batches of 100, LATEST and an hourly backstop', () => {
    const config = parseConfig({});

    expect(config.SALESFORCE_PUBSUB).toBe(false);
    expect(config.SALESFORCE_PUBSUB_TOPICS).toEqual([
      '/data/OpportunityChangeEvent',
      '/data/EventChangeEvent',
      '/data/OpportunityContactRoleChangeEvent',
      '/data/ContactChangeEvent',
      '/data/LeadChangeEvent',
    ]);
    expect(config.SALESFORCE_PUBSUB_TOPICS).toEqual([...DEFAULT_PUBSUB_TOPICS]);
    expect(config.SALESFORCE_PUBSUB_ENDPOINT).toBe('api.pubsub.salesforce.com:7443');
    expect(config.SALESFORCE_PUBSUB_BATCH).toBe(100);
    expect(config.SALESFORCE_PUBSUB_START).toBe('LATEST');
    expect(config.SALESFORCE_PUBSUB_BACKSTOP).toBe(3_600_000);
  });

  it('when channels of each accepted form are listed, once twice, then each is kept once in order', () => {
    const config = parseConfig({
      SALESFORCE_PUBSUB_TOPICS: '/data/ChangeEvents, /data/Meeting_Note__ChangeEvent,/data/Meetings__chn,/data/ChangeEvents',
    });

    expect(config.SALESFORCE_PUBSUB_TOPICS).toEqual(['/data/ChangeEvents', '/data/Meeting_Note__ChangeEvent', '/data/Meetings__chn']);
  });

  it.each([
    ['a platform event channel', '/event/Meeting__e'],
    ['an object name without ChangeEvent', '/data/Opportunity'],
    ['the wrong case', '/data/opportunitychangeevent'],
    ['no /data/ prefix', 'OpportunityChangeEvent'],
  ])('when a channel is %s, then the start is refused with a line naming that channel and the accepted forms', (_, topic) => {
    expect(problemsOf({ SALESFORCE_PUBSUB_TOPICS: `/data/LeadChangeEvent,${topic}` })).toEqual([
      expect.stringMatching(
        new RegExp(
          `^SALESFORCE_PUBSUB_TOPICS: ${JSON.stringify(topic).replaceAll('/', '\\/')}: expected a Change Data Capture channel: \\/data\\/<Object>ChangeEvent .*\\/data\\/ChangeEvents, or a custom channel \\/data\\/<Name>__chn;`,
        ),
      ),
    ]);
  });

  it.each([
    ['SALESFORCE_PUBSUB_BATCH', '0', 'SALESFORCE_PUBSUB_BATCH: expected at least 1; got "0" (example: SALESFORCE_PUBSUB_BATCH=100)'],
    ['SALESFORCE_PUBSUB_BATCH', '101', 'SALESFORCE_PUBSUB_BATCH: expected at most 100; got "101" (example: SALESFORCE_PUBSUB_BATCH=100)'],
    ['SALESFORCE_PUBSUB', 'yes', 'SALESFORCE_PUBSUB: expected on or off; got "yes" (example: SALESFORCE_PUBSUB=on)'],
    ['SALESFORCE_PUBSUB_START', 'CUSTOM', 'SALESFORCE_PUBSUB_START: expected LATEST or EARLIEST; got "CUSTOM" (example: SALESFORCE_PUBSUB_START=LATEST)'],
    [
      'SALESFORCE_PUBSUB_ENDPOINT',
      'https://api.pubsub.salesforce.com',
      'SALESFORCE_PUBSUB_ENDPOINT: expected host:port such as api.pubsub.salesforce.com:7443; got "https://api.pubsub.salesforce.com" (example: SALESFORCE_PUBSUB_ENDPOINT=api.pubsub.salesforce.com:7443)',
    ],
    [
      'SALESFORCE_PUBSUB_BACKSTOP',
      '30s',
      'SALESFORCE_PUBSUB_BACKSTOP: expected a duration of at least 1m such as 1h; got "30s" (example: SALESFORCE_PUBSUB_BACKSTOP=1h)',
    ],
  ])('when %s is %s, then the start is refused with one precise line', (name, value, line) => {
    expect(problemsOf({ [name]: value })).toEqual([line]);
  });

  it('when SALESFORCE_PUBSUB is on without the lookup credentials, then the start is refused naming the credentials it needs', () => {
    expect(problemsOf({ SALESFORCE_PUBSUB: 'on', SALESFORCE_CLIENT_ID: '3MVG9-pubsub' })).toEqual([
      'SALESFORCE_PUBSUB: on needs the Salesforce lookup credentials, which are not all set: SALESFORCE_CLIENT_ID with SALESFORCE_CLIENT_SECRET (client credentials), or with SALESFORCE_USERNAME and SALESFORCE_PRIVATE_KEY or SALESFORCE_PRIVATE_KEY_FILE (JWT bearer)',
    ]);
  });

  it('when SALESFORCE_PUBSUB is on with an empty channel list, then the start is refused saying it needs one', () => {
    expect(problemsOf({ SALESFORCE_PUBSUB: 'on', SALESFORCE_PUBSUB_TOPICS: '', ...CLIENT_CREDENTIALS })).toEqual([
      'SALESFORCE_PUBSUB_TOPICS: SALESFORCE_PUBSUB=on needs at least one channel; it is empty (example: SALESFORCE_PUBSUB_TOPICS=/data/OpportunityChangeEvent)',
    ]);
  });

  it.each([
    ['client credentials', CLIENT_CREDENTIALS],
    [
      'the JWT bearer flow',
      { SALESFORCE_CLIENT_ID: '3MVG9-pubsub', SALESFORCE_USERNAME: 'bridge@example.com', SALESFORCE_PRIVATE_KEY_FILE: '/run/secrets/sf.pem' },
    ],
  ])('when SALESFORCE_PUBSUB is on with the lookup credentials of %s, then it is on', (_, credentials) => {
    expect(parseConfig({ SALESFORCE_PUBSUB: 'on', ...credentials }).SALESFORCE_PUBSUB).toBe(true);
  });
});
