import { describe, expect, it } from 'vitest';

import { MOMENTUM_RATE_KEY } from '../../src/momentum/delivery-jobs.ts';
import { FIXTURE_OPPORTUNITY, FIXTURE_TITLE, hasChromium, ORG_ORIGIN, useConsoleWalk, WALK_TITLE } from './support/console-walk.ts';

/*
 * Part of the walk through every page of the operator console in headless Chromium (one browser for
 * this file; the harness, and why one engine, in support/console-walk.ts): the overview (quota
 * panel and activity chart), a delivery found by search and opened, and the quota panel once
 * Momentum has paused the bridge.
 */

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  const walk = useConsoleWalk();
  const { api, photograph, openTab } = walk;

  it('when the console opens, then the quota panel shows the configured limit and the chart draws the messages posted', async () => {
    const { page } = walk;
    await page.locator('#quota-panel[data-limit="5"]').waitFor();
    await page.locator('#activity-panel[data-loaded="true"]').waitFor();
    const activity = (await api('activity')) as { buckets: Array<Record<string, number>> };
    const total = (key: string) => activity.buckets.reduce((sum, bucket) => sum + (bucket[key] ?? 0), 0);

    const limitText = await page.locator('#quota-panel [data-field="limit"]').textContent();
    const meter = await page.locator('#quota-meter').evaluate((node: HTMLMeterElement) => ({ max: node.max, value: node.value }));
    const panel = await page.locator('#activity-panel').evaluate((node: HTMLElement) => ({ ...node.dataset }));
    const bars = {
      inbound: await page.locator('#activity-chart rect.series-inbound').count(),
      delivered: await page.locator('#activity-chart rect.series-delivered').count(),
      dead: await page.locator('#activity-chart rect.series-dead').count(),
    };
    const chartTitle = await page.locator('#activity-chart svg > title').textContent();
    const tableRows = await page.locator('#activity-table tbody tr').count();
    await photograph('01-overview-deliveries');

    expect(limitText).toBe('5 per 1 min');
    expect(meter).toEqual({ max: 5, value: 3 });
    expect(panel).toMatchObject({ inbound: String(total('inbound')), delivered: String(total('delivered')), dead: '1' });
    expect(total('inbound')).toBe(3);
    expect(total('delivered')).toBe(2);
    expect(bars.inbound).toBeGreaterThan(0);
    expect(bars.delivered).toBeGreaterThan(0);
    expect(bars.dead).toBe(1);
    expect(chartTitle).toContain('3 inbound, 2 delivered, 1 dead');
    expect(tableRows).toBe(activity.buckets.length);
  });

  it('when an operator searches the deliveries and opens one, then its page shows title, Salesforce links, event, rule, attempts and actions', async () => {
    const { page } = walk;
    await openTab('deliveries');
    const row = page.locator('#deliveries-table tbody tr', { hasText: FIXTURE_TITLE });
    await row.waitFor();
    const link = row.locator(`a[href="${ORG_ORIGIN}/${FIXTURE_OPPORTUNITY}"]`);
    const linkShown = await link.count();
    const start = await row.locator('[data-field="start"]').textContent();

    await page.locator('#delivery-search').fill('initech');
    await page.locator('#deliveries-table[data-q="initech"]').waitFor();
    const found = await page.locator('#deliveries-table tbody tr[data-id]').allTextContents();
    await page.locator('#delivery-search').fill('');
    await page.locator('#deliveries-table[data-q=""]').waitFor();

    await row.locator('td').nth(1).click();
    const detail = page.locator('#delivery-detail');
    await detail.locator('[data-field="origin"] [data-field="rule"]').waitFor();
    const rule = await detail.locator('[data-field="origin"] [data-field="rule"]').textContent();
    const eventLink = await detail.locator('[data-field="origin"] button.link').textContent();
    const recordLinks = await detail.locator(`[data-field="origin"] a[href^="${ORG_ORIGIN}/"]`).count();
    const attempts = await detail.locator('table.attempts tbody tr').count();
    const replayEnabled = await detail.locator('#detail-replay').isEnabled();
    const cancelEnabled = await detail.locator('#detail-cancel').isEnabled();
    await photograph('02-delivery-page');

    expect(linkShown).toBe(1);
    expect(start).not.toBe('—');
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('Renewal call with Initech');
    expect(rule).toBe('sobject:Event');
    expect(eventLink).toMatch(/^#\d+ salesforce$/);
    expect(recordLinks).toBe(2);
    expect(attempts).toBe(1);
    expect(replayEnabled).toBe(true);
    expect(cancelEnabled).toBe(false);
  });

  it('when Momentum has paused the bridge (a 429 block), then the quota panel says until when, with the next stats refresh', async () => {
    const { page, bridge } = walk;
    const until = Date.now() + 10 * 60_000;
    // As the delivery handler records a 429 with Retry-After: a block on the shared budget.
    await (await bridge.store()).blockRate(MOMENTUM_RATE_KEY, until);
    await page.locator('#quota-panel[data-state="blocked"] #quota-blocked').waitFor();
    const alert = await page.locator('#quota-blocked').textContent();
    const role = await page.locator('#quota-blocked').getAttribute('role');
    await photograph('08-quota-blocked');

    expect(alert).toMatch(/^Momentum answered 429\. No call goes until .+ \(in (9|10) min\)\.$/);
    expect(role).toBe('alert');
  });
});
