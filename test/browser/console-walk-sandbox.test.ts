import { describe, expect, it } from 'vitest';

import { hasChromium, useConsoleWalk, WALK_TITLE } from './support/console-walk.ts';

/*
 * Part of the walk through the operator console in headless Chromium (the harness, and why one
 * engine, in support/console-walk.ts): a bridge started without MOMENTUM_API_KEY, so every delivery
 * goes to the built-in sandbox receiver and none reaches Momentum, and nothing was refused.
 */

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  // A blank key is no key: the bridge starts in sandbox mode.
  const walk = useConsoleWalk({ env: async () => ({ MOMENTUM_API_KEY: '' }) });

  it('when Momentum is the sandbox, then a banner above everything says nothing reaches Momentum and which setting to set, and health says sandbox', async () => {
    const { page, photograph, api } = walk;
    const health = (await api('health')) as { momentum: { mode: string } };
    const banner = page.locator('#banner-slot #sandbox-banner');
    await banner.waitFor();
    const text = await banner.textContent();
    const first = await page
      .locator('#console > *:not(:empty)')
      .first()
      .evaluate((node) => node.id);
    const mode = await page.locator('#health-slot [data-field="momentum-mode"]').textContent();
    const colours = await banner.evaluate((node) => [getComputedStyle(node).color, getComputedStyle(node).backgroundColor]);
    await photograph('25-sandbox-banner');

    expect(health.momentum.mode).toBe('sandbox');
    expect(text).toBe('Sandbox: nothing reaches Momentum — set MOMENTUM_API_KEY to deliver for real.');
    expect(first).toBe('banner-slot');
    expect(mode).toMatch(/^sandbox \(nothing is sent\) · last answer /);
    // White on dark orange: the harness's contrast check holds it to AA as it does every text.
    expect(colours).toEqual(['rgb(255, 255, 255)', 'rgb(147, 55, 13)']);
  });

  it('when nothing was refused, then the Refused traffic view says so and lists nothing', async () => {
    const { page, photograph, openTab } = walk;
    await openTab('refusals');
    await page.locator('#refusals-list[data-loaded="24"]').waitFor({ state: 'attached' });
    const note = await page.locator('#refusals-note').textContent();
    const cards = await page.locator('#refusals-list article').count();
    await photograph('26-refused-traffic-empty');

    expect(note).toBe('Nothing was refused in the last 24 hours.');
    expect(cards).toBe(0);
  });
});
