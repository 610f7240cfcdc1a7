import { describe, expect, it } from 'vitest';

import { replies } from '../fakes/fake-momentum.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { waitFor } from '../support/wait-for.ts';
import { hasChromium, PHONE, useConsoleWalk, WALK_TITLE, WIDE } from './support/console-walk.ts';

/*
 * Part of the walk through the operator console in headless Chromium (the harness, and why one
 * engine, in support/console-walk.ts): the health panel, the refused traffic, and "what happened to
 * meeting X?". After the three meetings every walk starts with, Momentum answers 404 for one more
 * meeting (it does not know it) and then 401 for every call (the key was revoked), so Momentum is
 * failing; three requests from senders the bridge does not take are refused.
 */

const UNKNOWN_TITLE = 'Board sync with Umbrella';
const REVOKED_TITLE = 'Quarterly review with Hooli';
const FOREIGN_ORG = '00D8d0000009XyZEAU';

interface Delivery {
  id: number;
  number: number;
  state: string;
  title: string | null;
}

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  const walk = useConsoleWalk({
    async seed({ bridge, momentum, api }) {
      momentum.script((request) =>
        (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title === UNKNOWN_TITLE
          ? replies.status(404, { message: 'meeting not found' })
          : replies.status(401, { message: 'invalid api key' }),
      );
      // One at a time, so the 401 is Momentum's newest answer.
      for (const [n, title] of [
        [4, UNKNOWN_TITLE],
        [5, REVOKED_TITLE],
      ] as const) {
        const xml = outboundMessage({ notifications: [eventNotification(n, { Subject: title, WhatId: `0068d0000${n}0${n}XyZAAU` })] });
        expect((await postOutboundMessage(bridge.url, xml)).status).toBe(200);
        await waitFor(`${title} to end dead`, async () => (await deliveries(api)).some((item) => item.title === title && item.state === 'dead'));
      }
      // Refused: two Outbound Messages of an org not allowed, one signed event with no secret configured.
      const foreign = outboundMessage({ orgId: FOREIGN_ORG, notifications: [eventNotification(6)] });
      for (let n = 0; n < 2; n += 1) expect((await postOutboundMessage(bridge.url, foreign)).status).not.toBe(200);
      const unsigned = await fetch(`${bridge.url}/calendar/events`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      expect(unsigned.status).toBeGreaterThanOrEqual(400);
    },
  });
  const deliveries = async (api: typeof walk.api) => ((await api('deliveries')) as unknown as { items: Delivery[] }).items;

  it('when Momentum answers 401, then the health panel says Degraded, shows Momentum failing with its error, every integration and the facts of the bridge', async () => {
    const { page, photograph, api } = walk;
    const health = (await api('health')) as { integrations: Array<{ name: string; state: string; enableWith?: string }>; version: string };
    const panel = page.locator('#health-slot section.health[data-loaded="true"]');
    await panel.locator('[data-integration="momentum"][data-state="failing"]').waitFor();

    const summary = await panel.locator('[data-field="health-summary"]').textContent();
    const momentum = await panel.locator('[data-integration="momentum"]').textContent();
    const shown = await panel
      .locator('[data-integration]')
      .evaluateAll((items) => items.map((item) => [item.getAttribute('data-integration'), item.getAttribute('data-state')]));
    const google = await panel.locator('[data-integration="google"]').textContent();
    const facts = await panel.locator('dl.fields').textContent();
    const mode = await panel.locator('[data-field="momentum-mode"]').textContent();
    const banner = await page.locator('#banner-slot').evaluate((slot) => slot.childElementCount);
    await photograph('20-health-failing');

    const count = (state: string) => health.integrations.filter((entry) => entry.state === state).length;
    expect(summary).toBe(`Degraded · ${count('on')} on · 1 failing · ${count('off')} off`);
    expect(momentum).toMatch(/^Momentum failing .*401.*invalid api key.* ago/);
    expect(shown).toEqual(health.integrations.map((entry) => [entry.name, entry.state]));
    expect(google).toContain(`turn on with ${health.integrations.find((entry) => entry.name === 'google')?.enableWith}`);
    expect(facts).toContain(`Version${health.version}`);
    expect(facts).toContain('Enginesqlite');
    expect(facts).toMatch(/Instances1 seen in the last 2 min/);
    expect(mode).toMatch(/^real · last answer .*401/);
    expect(banner).toBe(0);
  });

  it('when the console opens on a phone, then the first screen shows the health summary folded and the active view, and the summary opens the list', async () => {
    const { page } = walk;
    await page.setViewportSize(PHONE);
    await page.reload();
    await page.locator('#health-slot section.health[data-loaded="true"]').waitFor();
    const folded = await page.locator('#health-details').evaluate((node: HTMLDetailsElement) => !node.open);
    const summaryBottom = (await page.locator('#health-details > summary').boundingBox())!;
    const viewTop = (await page.locator('#deliveries-view').boundingBox())!.y;
    await page.locator('#health-details > summary').click();
    await page.locator('#health-slot [data-integration="momentum"]').waitFor({ state: 'visible' });
    await page.setViewportSize(WIDE);

    expect(folded).toBe(true);
    expect(summaryBottom.y + summaryBottom.height).toBeLessThan(PHONE.height / 3);
    expect(viewTop).toBeLessThan(PHONE.height);
  });

  it('when requests were refused, then the Refused traffic view counts them per route and reason with their examples, and no body', async () => {
    const { page, photograph, openTab, api } = walk;
    const answer = (await api('refusals')) as {
      total: number;
      routes: Array<{ route: string; reason: string; count: number; examples: Array<{ sender: string }> }>;
    };
    await openTab('refusals');
    await page.locator('#refusals-list[data-loaded="24"]').waitFor({ state: 'attached' });
    const note = await page.locator('#refusals-note').textContent();
    const cards = await page
      .locator('#refusals-list article.refusal')
      .evaluateAll((items) => items.map((item) => [item.getAttribute('data-route'), item.getAttribute('data-reason'), item.getAttribute('data-count')]));
    const examples = await page.locator('#refusals-list [data-field="examples"] tbody tr').count();
    const senders = await page.locator('#refusals-list [data-field="sender"]').allTextContents();
    const text = await page.locator('#refusals-view').textContent();
    await photograph('21-refused-traffic');

    expect(answer.total).toBe(3);
    expect(note).toMatch(/^3 refused in the last 24 hours/);
    expect(cards).toEqual(answer.routes.map((entry) => [entry.route, entry.reason, String(entry.count)]));
    expect(cards.map(([route]) => route).sort()).toEqual(['/calendar/events', '/salesforce/outbound-message']);
    expect(examples).toBe(3);
    expect(senders).toEqual(answer.routes.flatMap((entry) => entry.examples.map((example) => example.sender)));
    expect(text).not.toContain(FOREIGN_ORG);
  });

  it('when an operator searches a meeting and opens it, then its page is headed by title and time with the timeline, and its dead delivery is headed by the title with what to do', async () => {
    const { page, photograph, openTab, api } = walk;
    const dead = (await deliveries(api)).find((item) => item.title === UNKNOWN_TITLE)!;
    await openTab('meetings');
    await page.locator('#meeting-search').fill('umbrella');
    await page.locator('#meetings-table[data-q="umbrella"]').waitFor();
    const found = await page.locator('#meetings-table tbody tr[data-key]').allTextContents();
    await photograph('22-meeting-search');

    await page.locator('#meetings-table tbody tr[data-key] button').first().click();
    const meeting = page.locator('#meeting-detail');
    await meeting.locator('[data-field="timeline"]').waitFor();
    const heading = await meeting.locator('h2').textContent();
    const start = await meeting.locator('[data-field="meeting-start"]').textContent();
    const startInBrowser = await page.evaluate(() => new Date('2026-03-02T16:00:00.000Z').toLocaleString());
    const types = await meeting.locator('[data-field="timeline"] > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-type')));
    const deliveryEntry = await meeting.locator('[data-field="timeline"] > li[data-type="delivery"]').textContent();
    await photograph('23-meeting-timeline');

    await meeting.locator('[data-field="timeline"] > li[data-type="delivery"] [data-field="delivery-link"]').click();
    const detail = page.locator(`#delivery-detail[data-id="${dead.id}"]`);
    await detail.locator('[data-field="action"]').waitFor();
    const deliveryHeading = await detail.locator('h2').textContent();
    const number = await detail.locator('[data-field="number"]').textContent();
    const advice = await detail.locator('[data-field="action"]').textContent();
    const button = await detail.locator('#detail-action').getAttribute('data-button');
    const listed = await page.locator(`#deliveries-table tbody tr[data-id="${dead.id}"] td`).first().textContent();
    await photograph('24-delivery-action');

    await detail.locator('#detail-action').click();
    await page.locator('#import-view').waitFor({ state: 'visible' });
    const prefilled = {
      id: await page.locator('#import-id').inputValue(),
      title: await page.locator('#import-title').inputValue(),
      start: await page.locator('#import-start').inputValue(),
      focused: await page.evaluate(() => document.activeElement?.id),
    };
    await walk.openTab('deliveries');
    await page.locator(`#delivery-detail[data-id="${dead.id}"] [data-field="meeting-page"]`).click();
    const back = await page.locator('#meeting-detail h2').textContent();

    expect(found).toHaveLength(1);
    expect(found[0]).toContain(UNKNOWN_TITLE);
    expect(found[0]).toContain('salesforce');
    expect(heading).toBe(UNKNOWN_TITLE);
    expect(start).toBe(startInBrowser);
    expect(types[0]).toBe('attempt');
    expect(types).toEqual(expect.arrayContaining(['event', 'delivery', 'attempt']));
    expect(deliveryEntry).toContain(`#${dead.number} remap`);
    expect(deliveryEntry).toContain('dead');
    expect(deliveryHeading).toBe(UNKNOWN_TITLE);
    expect(number).toBe(`Delivery #${dead.number} · remap `);
    expect(advice).toContain('Momentum answered 404');
    expect(advice).toContain('Momentum does not know this meeting yet');
    expect(button).toBe('import');
    expect(listed).toBe(String(dead.number));
    // A Salesforce Event's remap names no source id: the form asks the operator for the meeting's id.
    expect(prefilled).toEqual({ id: '', title: UNKNOWN_TITLE, start: expect.stringMatching(/^2026-03-0[23]T\d\d:00$/), focused: 'import-id' });
    expect(back).toBe(UNKNOWN_TITLE);
  });
});
