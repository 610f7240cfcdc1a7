import { randomBytes } from 'node:crypto';

import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';

import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { bridgeUnderTest } from './support/bridge-under-test.ts';

/*
 * Values that index entries cannot hold as they are: a meeting key built from a 6 000-character
 * title is over PostgreSQL's btree limit (about 2.7 kB). Keys are bounded (a hash past 200
 * characters), so such a meeting maps and forwards on both engines instead of looping.
 */

const ORG = '00D8d0000001XyZEAU';
const DATABASE_URL = process.env.TEST_DATABASE_URL;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function postgresUrl(): Promise<string> {
  const schema = `bridge_long_${randomBytes(4).toString('hex')}`;
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });
  return `${DATABASE_URL}?schema=${schema}`;
}

const engines = [
  ['SQLite', async () => ({})],
  ...(DATABASE_URL ? [['PostgreSQL', async () => ({ DATABASE_URL: await postgresUrl() })] as const] : []),
] as const;

describe.each(engines)('long values through startBridge (%s)', (_engine, database) => {
  it('when a mapped Event title is 6 000 characters long, then the message is acked and Momentum receives the remap with the whole title', async () => {
    const momentum = await startFakeMomentum();
    cleanups.push(momentum.close);
    const { bridge, dispose } = await bridgeUnderTest({
      SALESFORCE_ORG_IDS: ORG,
      MOMENTUM_API_BASE_URL: momentum.url,
      MOMENTUM_API_KEY: 'mk-e2e-key',
      ...(await database()),
    });
    cleanups.push(dispose);
    const title = `Globex ${'quarterly business review '.repeat(240)}`.slice(0, 6_000);

    const ack = await fetch(`${bridge.url}/salesforce/outbound-message`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=UTF-8', soapaction: '""' },
      body: outboundMessage({ notifications: [eventNotification(1, { Subject: title, WhatId: '0068d0000101XyZAAU' })] }),
    });
    const [remap] = await momentum.waitFor(1);

    expect(ack.status).toBe(200);
    expect((remap?.body as { meetingDetails?: { title?: string } }).meetingDetails?.title).toBe(title);
  });
});
