import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it, vi } from 'vitest';

import { createFakePubSub, type FakePubSub } from '../fakes/fake-pubsub.ts';
import { type FakeSalesforceOrg, startFakeSalesforceOrg } from '../fakes/fake-salesforce-org/index.ts';
import { orgOf } from '../fakes/fake-salesforce-records.ts';
import { TEST_CERT_FILE } from '../fakes/trust-test-ca.ts';
import { ORG_ID } from '../salesforce/support/outbound-message-builder.ts';
import { waitFor } from '../support/wait-for.ts';
import { hasChromium, useConsoleWalk, WALK_TITLE } from './support/console-walk.ts';

/*
 * Part of the walk through the operator console in headless Chromium (the harness in
 * support/console-walk.ts): a bridge with SALESFORCE_PUBSUB on, streaming two Change Data Capture
 * channels from the fake Pub/Sub over TLS and signed in at the fake org (wired as
 * test/salesforce/pubsub/support/cdc-world.ts does). One Event change is streamed, then the fake
 * resets every stream once, so the health panel has an event, keepalives and an error to show.
 */

const EVENTS = '/data/EventChangeEvent';
const OPPORTUNITIES = '/data/OpportunityChangeEvent';
const APP = { clientId: 'walk-app', clientSecret: 'walk-secret' };
const EVENT = '00U8d0000907XyZEAU';

interface Subscription {
  topic: string;
  state: string;
  replayId: string | null;
  replayIdAgeSeconds: number | null;
  lastEventAt: string | null;
  lastKeepaliveAt: string | null;
  lastError: string | null;
}

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  let org: FakeSalesforceOrg | undefined;
  let pubsub: FakePubSub | undefined;
  afterAll(async () => {
    await pubsub?.close();
    await org?.close();
    vi.unstubAllEnvs();
  });

  const walk = useConsoleWalk({
    async env() {
      // The bridge runs in this process: its channel trusts the file NODE_EXTRA_CA_CERTS names.
      vi.stubEnv('NODE_EXTRA_CA_CERTS', fileURLToPath(TEST_CERT_FILE));
      const relay: { accept?: (token: string) => void } = {};
      org = await startFakeSalesforceOrg({ org: { ...orgOf({}), Event: [] }, ...APP, onToken: (token) => relay.accept?.(token) });
      const fake = createFakePubSub({ tokens: [], keepaliveMs: 100, orgId: ORG_ID, instanceUrl: org.url });
      pubsub = fake;
      relay.accept = (token) => fake.addValidToken(token);
      return {
        SALESFORCE_LOGIN_URL: org.url,
        SALESFORCE_CLIENT_ID: APP.clientId,
        SALESFORCE_CLIENT_SECRET: APP.clientSecret,
        SALESFORCE_PUBSUB: 'on',
        SALESFORCE_PUBSUB_TOPICS: `${EVENTS},${OPPORTUNITIES}`,
        SALESFORCE_PUBSUB_ENDPOINT: await fake.start(),
        SALESFORCE_PUBSUB_START: 'EARLIEST',
      };
    },
    async seed({ api }) {
      const subscriptions = async () => ((await api('pubsub')) as unknown as { subscriptions: Subscription[] }).subscriptions;
      await waitFor('both channels to subscribe', async () => (await subscriptions()).filter((entry) => entry.state === 'subscribed').length === 2);
      const streamed = pubsub!.publish(EVENTS, {
        header: { entityName: 'Event', recordIds: [EVENT], changeType: 'CREATE', transactionKey: 'tx-walk' },
        fields: { WhatId: '0068d0000707XyZAAU', Subject: 'Kickoff with Stark', StartDateTime: BigInt(Date.parse('2026-03-02T16:00:00.000Z')) },
      });
      const eventsHex = streamed.replayId.toString('hex');
      await waitFor('the Event change to be stored', async () => (await subscriptions()).some((entry) => entry.topic === EVENTS && entry.lastEventAt !== null));
      pubsub!.killAllStreams();
      await waitFor('both channels to be back, with the reset noted', async () => {
        const entries = await subscriptions();
        return entries.length === 2 && entries.every((entry) => entry.state === 'subscribed' && entry.lastError !== null && entry.lastKeepaliveAt !== null);
      });
      expect((await subscriptions()).find((entry) => entry.topic === EVENTS)?.replayId).not.toBe(null);
      expect(eventsHex).not.toBe('');
    },
  });

  it('when SALESFORCE_PUBSUB is on, then the health panel lists each channel with its state, replay id age, last event, last keepalive and last error, as GET /admin/pubsub stores them', async () => {
    const { page, photograph, api } = walk;
    const answer = (await api('pubsub')) as unknown as { enabled: boolean; subscriptions: Subscription[] };
    const panel = page.locator('#health-slot section.health[data-loaded="true"]');
    await panel.locator('[data-field="pubsub-topics"] li[data-topic]').first().waitFor();

    const heading = await panel.locator('#pubsub-title').textContent();
    const shown = await panel
      .locator('[data-field="pubsub-topics"] li[data-topic]')
      .evaluateAll((items) => items.map((item) => [item.getAttribute('data-topic'), item.getAttribute('data-state')]));
    const events = panel.locator(`li[data-topic="${EVENTS}"]`);
    const opportunities = panel.locator(`li[data-topic="${OPPORTUNITIES}"]`);
    const texts = {
      eventsAge: await events.locator('[data-field="replay-age"]').textContent(),
      eventsLastEvent: await events.locator('[data-field="last-event"]').textContent(),
      eventsKeepalive: await events.locator('[data-field="last-keepalive"]').textContent(),
      eventsError: await events.locator('[data-field="last-error"]').textContent(),
      opportunitiesAge: await opportunities.locator('[data-field="replay-age"]').textContent(),
      opportunitiesLastEvent: await opportunities.locator('[data-field="last-event"]').textContent(),
      replayIdTitle: await events.locator('[data-field="replay-age"]').getAttribute('title'),
    };
    // Folded and opened again by hand: the list then stays open at the phone's width too, for its photograph.
    await page.locator('#health-details > summary').click();
    await page.locator('#health-details > summary').click();
    await photograph('25-health-pubsub');
    const openOnPhone = await page.locator('#health-details').evaluate((node: HTMLDetailsElement) => node.open);

    const stored = (topic: string) => answer.subscriptions.find((entry) => entry.topic === topic)!;
    expect(answer.enabled).toBe(true);
    expect(openOnPhone).toBe(true);
    expect(heading).toBe('Salesforce Pub/Sub channels');
    expect(shown).toEqual(answer.subscriptions.map((entry) => [entry.topic, entry.state]));
    expect(shown.map(([, state]) => state)).toEqual(['subscribed', 'subscribed']);
    expect(texts.eventsAge).toMatch(/^replay id \d+ s old$/);
    expect(texts.eventsLastEvent).toMatch(/^last event \d+ s ago$/);
    expect(texts.eventsKeepalive).toMatch(/^keepalive \d+ s ago$/);
    expect(texts.eventsError).toBe(stored(EVENTS).lastError);
    expect(texts.replayIdTitle).toBe(stored(EVENTS).replayId);
    // Nothing was committed on the Opportunity channel: only keepalives moved its replay id.
    expect(texts.opportunitiesAge).toBe('replay id from keepalives, no event yet');
    expect(texts.opportunitiesLastEvent).toBe('no last event yet');
  });
});
