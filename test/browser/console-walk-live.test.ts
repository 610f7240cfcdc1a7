import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import { hasChromium, PHONE, UI_TIMEOUT_MS, useConsoleWalk, WALK_TITLE, WIDE } from './support/console-walk.ts';

/*
 * Part of the walk through the operator console in headless Chromium (the harness, and why one
 * engine, in support/console-walk.ts): the lists keep themselves up to date and hold still while
 * the operator reads; a delivery's page beside its list at 1366×768 cuts no column; on a 375 px
 * phone the views are a menu and the rows are cards.
 */

const LONG_TITLE = 'Quarterly business review with the whole procurement committee of Globex Corporation';

/** The live poller's intervals so far (live.js counts them on the indicator). */
const ticks = async (page: Page) => Number((await page.locator('#live-indicator').getAttribute('data-ticks')) ?? 0);

/** Waits until `count` more live intervals have passed: enough for a refresh to have run, had the list been live. */
async function intervalsPass(page: Page, count: number): Promise<void> {
  const from = await ticks(page);
  await expect.poll(() => ticks(page), { timeout: UI_TIMEOUT_MS * 2, interval: 250 }).toBeGreaterThanOrEqual(from + count);
}

/** Cells of a list a reader sees cut: wider than their box, with no title to read them in full. */
const cutCells = (page: Page, table = '#deliveries-table') =>
  page.locator(table).evaluate((table) =>
    [...table.querySelectorAll('th, td')]
      .filter((cell) => cell instanceof HTMLElement && cell.getClientRects().length > 0)
      .filter((cell) => cell.scrollWidth > cell.clientWidth && !cell.getAttribute('title'))
      .map((cell) => `${cell.getAttribute('data-label') ?? cell.textContent}: ${cell.scrollWidth} > ${cell.clientWidth}`),
  );

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  const walk = useConsoleWalk();
  const remap = async (sourceId: string, title = `Live ${sourceId}`) => {
    const answer = (await walk.api('meetings/remap', {
      method: 'POST',
      body: JSON.stringify({
        source: { id: sourceId, type: 'GOOGLE_CALENDAR' },
        salesforceRecords: { opportunityId: '0065w000023STAmAAO' },
        meetingDetails: { title },
      }),
    })) as { delivery: { id: number } };
    return answer.delivery.id;
  };

  it('when a delivery is created while the list is on screen, then it appears without a reload, and unchanged polls are answered 304', async () => {
    // Arrange: the deliveries on screen, at the top of the page, live.
    const { page } = walk;
    await walk.openTab('deliveries');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.locator('#live-indicator[data-state="live"]').waitFor();
    const statuses: number[] = [];
    page.on('response', (response) => void (new URL(response.url()).pathname === '/admin/deliveries' && statuses.push(response.status())));
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    await intervalsPass(page, 2);

    // Act
    const id = await remap('live-new-1');
    await page.locator(`#deliveries-table tbody tr[data-id="${id}"]`).waitFor();

    // Assert: the same document (no reload), the row first, the unchanged polls cheap.
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await page.locator('#deliveries-table tbody tr').first().getAttribute('data-id')).toBe(String(id));
    expect(statuses).toContain(304);
    expect(await page.locator('#live-indicator').textContent()).toBe('Live');
  });

  it('when a delivery’s page is open, then the list holds still (same rows, same scroll) and says paused; closed, the list catches up and is live again', async () => {
    // Arrange: a delivery opened, the page scrolled a little (the list still in view), the rows marked.
    const { page } = walk;
    await walk.openTab('deliveries');
    // A dead one: an ended delivery's page does not poll, so nothing but the live poller could touch the list.
    const opened = page.locator('#deliveries-table tbody tr[data-state="dead"]').first();
    const openedId = await opened.getAttribute('data-id');
    await opened.locator('td').nth(1).click();
    await page.locator(`#delivery-detail[data-id="${openedId}"]`).waitFor();
    await page.evaluate(() => window.scrollTo(0, 100));
    await page.locator('#deliveries-table tbody').evaluate((body) => body.querySelectorAll('tr').forEach((row) => row.setAttribute('data-marker', 'kept')));
    const rowsBefore = await page.locator('#deliveries-table tbody tr').count();

    // Act: a new delivery, and two intervals in which a live list would have shown it.
    const id = await remap('live-while-reading');
    await intervalsPass(page, 2);
    const whileOpen = {
      indicator: await page.locator('#live-indicator').evaluate((node: HTMLElement) => ({ state: node.dataset.state, text: node.textContent })),
      newRow: await page.locator(`#deliveries-table tbody tr[data-id="${id}"]`).count(),
      marked: await page.locator('#deliveries-table tbody tr[data-marker="kept"]').count(),
      scrollY: await page.evaluate(() => window.scrollY),
      detail: await page.locator('#delivery-detail').getAttribute('data-id'),
    };
    await page.locator('#detail-close').click();
    await page.locator(`#deliveries-table tbody tr[data-id="${id}"]`).waitFor();

    // Assert
    expect(whileOpen).toEqual({
      indicator: { state: 'paused', text: 'Paused: a delivery is open' },
      newRow: 0,
      marked: rowsBefore,
      scrollY: 100,
      detail: openedId,
    });
    expect(await page.locator('#delivery-detail').isHidden()).toBe(true);
    expect(await page.locator('#live-indicator').getAttribute('data-state')).toBe('live');
    expect(await page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-id'))).toBe(openedId);
  });

  it('when the operator selects text in the list, then the list is paused until the selection is cleared', async () => {
    const { page } = walk;
    await walk.openTab('deliveries');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.locator('#live-indicator[data-state="live"]').waitFor();

    await page.locator('#deliveries-table tbody tr [data-field="title"]').first().selectText();
    await page.locator('#live-indicator[data-state="paused"]').waitFor();
    const reason = await page.locator('#live-indicator').getAttribute('data-reason');
    await page.evaluate(() => document.getSelection()?.removeAllRanges());
    await page.locator('#live-indicator[data-state="live"]').waitFor();

    expect(reason).toBe('text selected');
  });

  it('when a delivery’s page is open beside the list at 1366×768, then the list drops its low-value columns and no cell is cut without a title', async () => {
    // Arrange: a delivery with a long title and one with an error, on screen.
    const { page, photograph } = walk;
    const id = await remap('live-long-title', LONG_TITLE);
    await walk.openTab('deliveries');
    await page.locator('#deliveries-refresh').click();
    const row = page.locator(`#deliveries-table tbody tr[data-id="${id}"]`);
    await row.waitFor();
    const closedColumns = await page.locator('#deliveries-table thead th:visible').allTextContents();

    // Act
    await row.locator('td').nth(1).click();
    await page.locator(`#delivery-detail[data-id="${id}"]`).waitFor();

    // Assert: four columns kept whole, nothing wider than the page or its box.
    const openColumns = await page.locator('#deliveries-table thead th:visible').allTextContents();
    const cut = await cutCells(page);
    const overflow = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - window.innerWidth,
      list: [...document.querySelectorAll('#deliveries-view .list .table-scroll')].map((box) => box.scrollWidth - box.clientWidth),
    }));
    const errorCell = await page.locator('#deliveries-table tbody tr[data-state="dead"] [data-field="last-error"]').first().textContent();
    const title = await row.locator('[data-field="title"]').evaluate((cell) => ({ whole: cell.scrollWidth <= cell.clientWidth, text: cell.textContent }));
    await photograph('12-delivery-beside-list');
    await page.locator('#detail-close').click();

    expect(closedColumns).toEqual(['#', 'Title / source', 'Start', 'Salesforce', 'State', 'Tries', 'Last error']);
    expect(openColumns).toEqual(['#', 'Title / source', 'State', 'Last error']);
    expect(cut).toEqual([]);
    expect(overflow).toEqual({ page: 0, list: [0] });
    expect(errorCell).toBe('rejected: no such meeting');
    expect(title).toEqual({ whole: true, text: `${LONG_TITLE}remap` });
  });

  it('when an event’s page is open beside the events list, then the list drops its Key column, cuts no cell, and Escape closes the page', async () => {
    const { page } = walk;
    await walk.openTab('events');
    const row = page.locator('#events-table tbody tr[data-id]').first();
    const id = await row.getAttribute('data-id');

    await row.locator('td').nth(1).click();
    await page.locator(`#event-detail[data-id="${id}"]`).waitFor();
    const columns = await page.locator('#events-table thead th:visible').allTextContents();
    const cut = await cutCells(page, '#events-table');
    const indicator = await page.locator('#live-indicator').textContent();
    await page.keyboard.press('Escape');
    await page.locator('#event-detail').waitFor({ state: 'hidden' });

    expect(columns).toEqual(['#', 'Title', 'Source', 'State', 'Received', 'Reason']);
    expect(cut).toEqual([]);
    expect(indicator).toBe('Paused: an event is open');
    expect(await page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-id'))).toBe(id);
    expect(await page.locator('#events-table thead th:visible').count()).toBe(7);
  });

  it('when the console is on a 375 px phone, then the views are a keyboard menu, the first screen shows the active list, and each card shows its state and last error', async () => {
    const { page, photograph } = walk;
    await walk.openTab('deliveries');
    await page.setViewportSize(PHONE);
    try {
      await page.evaluate(() => window.scrollTo(0, 0));
      const menu = page.locator('#views-menu');
      const closed = { expanded: await menu.getAttribute('aria-expanded'), tabsShown: await page.locator('#view-tabs').isVisible() };

      // The first screen: the slots on top, then the active view's list.
      const firstScreen = await page.evaluate(() => {
        const top = (selector: string) => document.querySelector(selector)?.getBoundingClientRect().top ?? Infinity;
        return {
          slotsFirst: top('#health-slot') <= top('.viewbar') && top('#banner-slot') <= top('#health-slot'),
          firstCardInView: top('#deliveries-table tbody tr') < window.innerHeight,
        };
      });
      const dead = page.locator('#deliveries-table tbody tr[data-state="dead"]').first();
      const card = {
        display: await dead.evaluate((node) => getComputedStyle(node).display),
        state: await dead.locator('[data-field="state"]').textContent(),
        stateShown: await dead.locator('[data-field="state"]').isVisible(),
        error: await dead.locator('[data-field="last-error"]').textContent(),
        errorShown: await dead.locator('[data-field="last-error"]').isVisible(),
      };

      // The menu by keyboard: open, move to the next view, choose it.
      await menu.focus();
      await page.keyboard.press('Enter');
      const open = { expanded: await menu.getAttribute('aria-expanded'), focused: await page.evaluate(() => document.activeElement?.textContent) };
      await photograph('13-phone-views-menu');
      await page.setViewportSize(PHONE);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.locator('#events-view').waitFor({ state: 'visible' });
      const chosen = {
        expanded: await menu.getAttribute('aria-expanded'),
        label: await page.locator('#views-menu-current').textContent(),
        focusOnMenu: await page.evaluate(() => document.activeElement?.id),
      };
      await page.keyboard.press('Enter');
      await page.keyboard.press('Escape');
      const escaped = await menu.getAttribute('aria-expanded');
      await photograph('14-phone-events-cards');

      expect(closed).toEqual({ expanded: 'false', tabsShown: false });
      expect(firstScreen).toEqual({ slotsFirst: true, firstCardInView: true });
      expect(card).toEqual({ display: 'grid', state: 'dead', stateShown: true, error: 'rejected: no such meeting', errorShown: true });
      expect(open).toEqual({ expanded: 'true', focused: 'Deliveries' });
      expect(chosen).toEqual({ expanded: 'false', label: 'Inbound events', focusOnMenu: 'views-menu' });
      expect(escaped).toBe('false');
    } finally {
      await page.setViewportSize(WIDE);
    }
  });
});
