import { describe, expect, it } from 'vitest';

import { runBeforeAdminReadsForTests } from '../../src/store/admin-read-hooks.ts';
import { FIXTURE_TITLE, hasChromium, useConsoleWalk, WALK_TITLE } from './support/console-walk.ts';

/*
 * Part of the walk through the operator console in headless Chromium (the harness, and why one
 * engine, in support/console-walk.ts): typing on while a search is still being answered. Admin
 * reads are made slow on the bridge's read path (a recursive count before each), as searches over
 * a store of millions of deliveries are.
 */

const SLOW_READ = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000) SELECT count(*) AS n FROM c';
const searchOf = (url: string) => (url.includes('/admin/deliveries?') ? new URL(url).searchParams.get('q') : null);

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  const walk = useConsoleWalk();

  it('when an operator types a new search before the last one answered, then the last request is aborted, no error is shown, and the table shows the newest search', async () => {
    // Arrange: the deliveries listed, then every admin read slow.
    const { page } = walk;
    await walk.openTab('deliveries');
    await page.locator('#deliveries-table tbody tr', { hasText: FIXTURE_TITLE }).waitFor();
    const failed: string[] = [];
    page.on('requestfailed', (request) => {
      const q = searchOf(request.url());
      if (q !== null) failed.push(`${q}: ${request.failure()?.errorText}`);
    });
    const stopSlowReads = runBeforeAdminReadsForTests(() => SLOW_READ);

    // Act: a search, and while it is being answered, another.
    try {
      const firstAsked = page.waitForRequest((request) => searchOf(request.url()) === 'pricing');
      await page.locator('#delivery-search').fill('pricing');
      await firstAsked;
      await page.locator('#delivery-search').fill('initech');
      await page.locator('#deliveries-table[data-q="initech"]').waitFor();
    } finally {
      stopSlowReads();
    }

    // Assert: the first search was given up by the browser, and only the second one's answer is shown.
    const rows = await page.locator('#deliveries-table tbody tr[data-id] [data-field="title"]').allTextContents();
    expect(failed).toEqual(['pricing: net::ERR_ABORTED']);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('Renewal call with Initech');
    expect(await page.locator('#status').evaluate((node) => ({ text: node.textContent, error: node.classList.contains('error') }))).toEqual({
      text: '',
      error: false,
    });
  });
});
