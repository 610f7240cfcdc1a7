import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { KEY } from '../admin/support/admin-app.ts';
import { startAdminBridge } from '../admin/support/admin-bridge.ts';
import { storeEvent } from '../admin/support/seed.ts';
import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import type { TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * The console in headless Chromium against a bridge whose Momentum fails, on SQLite: the console
 * only speaks the admin API, whose routes are proven on both engines in test/admin and test/routes.
 */

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const ARTIFACTS = path.resolve(import.meta.dirname, '..', 'artifacts');
const UI_TIMEOUT_MS = 15_000;

const remapBody = (id: string) => ({ source: { id, type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } });

describe.skipIf(!hasChromium)(
  `operator console in headless Chromium${hasChromium ? '' : ` (skipped: ${CHROMIUM} is missing; apt-get install chromium)`}`,
  () => {
    let context: BrowserContext;
    let profile: string;
    let momentum: FakeMomentum;
    let bridge: TestBridge;
    let down: boolean;
    let page: Page;
    const problems: string[] = [];
    const apiCalls: Array<{ url: string; authorization: string | undefined }> = [];

    beforeAll(async () => {
      profile = mkdtempSync(path.join(tmpdir(), 'console-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
    });
    afterAll(async () => {
      await context?.close();
      rmSync(profile, { recursive: true, force: true });
    });

    /** A bridge whose Momentum fails (503) until `down` is cleared, with `count` remaps already dead. */
    async function startWithDeadDeliveries(count: number): Promise<number[]> {
      momentum = await startFakeMomentum();
      down = true;
      momentum.script(() => (down ? replies.serverError(503) : replies.accept()));
      bridge = await startAdminBridge({ momentum, retrySchedule: [0, 20] });
      const ids: number[] = [];
      for (let index = 0; index < count; index += 1) {
        const answer = await fetch(`${bridge.url}/admin/meetings/remap`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
          body: JSON.stringify(remapBody(`outage-${index}`)),
        });
        ids.push(((await answer.json()) as { delivery: { id: number } }).delivery.id);
      }
      await waitFor('the deliveries to go dead', async () =>
        (await Promise.all(ids.map(async (id) => (await bridge.store()).getJob(id)))).every((job) => job?.state === 'dead'),
      );
      return ids;
    }

    async function openConsole(): Promise<void> {
      page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT_MS);
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
      page.on('request', (call) => {
        const url = new URL(call.url());
        if (url.pathname.startsWith('/admin/') && !url.pathname.startsWith('/admin/assets/') && url.pathname !== '/admin/') {
          apiCalls.push({ url: url.pathname, authorization: call.headers().authorization });
        }
      });
      await page.goto(`${bridge.url}/admin/`);
      await page.locator('#key-input').fill(KEY);
      await page.locator('#key-submit').click();
      await page.locator('#console').waitFor({ state: 'visible' });
    }

    afterEach(async () => {
      await page?.close();
      await bridge?.stop();
      await momentum?.close();
      problems.length = 0;
      apiCalls.length = 0;
    });

    it('when an operator filters to dead deliveries and replays one after Momentum recovers, then the console shows it succeed', async () => {
      const [, second] = await startWithDeadDeliveries(2);
      down = false;

      await openConsole();
      await expect.poll(() => page.locator('[data-stat="dead"] .value').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('2');
      await page.locator('#delivery-state').selectOption('dead');
      await page.locator('#deliveries-table[data-loaded="dead"]').waitFor();
      const rows = page.locator('#deliveries-table tbody tr[data-state="dead"]');
      await expect.poll(() => rows.count(), { timeout: UI_TIMEOUT_MS }).toBe(2);
      await page.locator(`#deliveries-table tbody tr[data-id="${second}"]`).click();
      await page.locator(`#delivery-detail[data-id="${second}"][data-state="dead"]`).waitFor();
      const attemptsShown = await page.locator('#delivery-detail table.attempts tbody tr').count();
      await page.locator('#detail-replay').click();
      // The detail follows the replay and refreshes itself until it ends: poll the UI, not the store.
      await page.locator('#delivery-detail[data-state="succeeded"]').waitFor();
      await expect.poll(() => page.locator('[data-stat="succeeded"] .value').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('1');
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'admin-console.png'), fullPage: true });

      const replayId = Number(await page.locator('#delivery-detail').getAttribute('data-id'));
      const replay = await (await bridge.store()).getJob(replayId);
      expect(replay).toMatchObject({ state: 'succeeded', replayOf: second, payload: expect.objectContaining({ replay: true }) });
      expect(attemptsShown).toBe(2);
      // The operator reads delivery numbers, not job ids.
      expect(await page.locator('#status').textContent()).toBe(
        `Replay #${replay!.deliveryNo} of delivery #${(await (await bridge.store()).getJob(second!))!.deliveryNo} queued.`,
      );
      expect(momentum.requests.filter((call) => (call.body as { source: { id: string } }).source.id === 'outage-1')).toHaveLength(3);
      expect(momentum.requests.filter((call) => (call.body as { source: { id: string } }).source.id === 'outage-0')).toHaveLength(2);
      expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([KEY]);
      expect(apiCalls.length).toBeGreaterThan(3);
      expect(apiCalls.filter((call) => call.authorization !== `Bearer ${KEY}`)).toEqual([]);
      expect(problems).toEqual([]);
    });

    it('when an operator bulk-replays dead deliveries, then the dry-run count is shown before anything is sent, and the confirmed run sends them', async () => {
      await startWithDeadDeliveries(3);
      down = false;
      const callsBefore = momentum.requests.length;

      await openConsole();
      await page.locator('#bulk-open').click();
      await page.locator('#bulk-summary[data-count="3"]').waitFor();
      const shownBeforeConfirming = await page.locator('#bulk-summary').textContent();
      const sampleItems = await page.locator('#bulk-sample li').count();
      const callsAfterDryRun = momentum.requests.length;
      await page.locator('#bulk-confirm').click();
      await expect.poll(() => page.locator('#bulk-summary').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('3 replays queued.');
      await waitFor('the replays to reach Momentum', () => momentum.requests.length === callsBefore + 3);

      expect(shownBeforeConfirming).toBe('3 dead deliveries would be replayed.');
      expect(sampleItems).toBe(3);
      expect(callsAfterDryRun).toBe(callsBefore);
      expect(problems).toEqual([]);
    });

    it('when an operator opens an inbound event, then its raw payload is shown as received, as text', async () => {
      await startWithDeadDeliveries(0);
      const raw = '<soapenv:Envelope><sf:Subject>&lt;b&gt;Demo&lt;/b&gt; <img src=x></sf:Subject></soapenv:Envelope>';
      const event = await storeEvent(await bridge.store(), { key: '00U5w00000ConsoLAAB', rawPayload: raw });

      await openConsole();
      await page.locator('.tab[data-tab="events"]').click();
      await page.locator(`#events-table tbody tr[data-id="${event.id}"]`).click();
      await page.locator(`#event-detail[data-id="${event.id}"]`).waitFor();

      expect(await page.locator('#event-detail pre[data-field="raw"]').textContent()).toBe(raw);
      expect(await page.locator('#event-detail img').count()).toBe(0);
      expect(problems).toEqual([]);
    });

    it('when pacing is off, then the quota panel says so instead of drawing a budget', async () => {
      momentum = await startFakeMomentum();
      bridge = await startAdminBridge({ momentum, retrySchedule: [0, 20], momentumRateLimit: 'off' });

      await openConsole();
      await page.locator('#quota-panel[data-state="off"]').waitFor();

      expect(await page.locator('#quota-panel [data-field="pacing"]').textContent()).toBe('Pacing off');
      expect(await page.locator('#quota-meter').count()).toBe(0);
      expect(problems).toEqual([]);
    });

    it('when a wrong key is entered, then the console stays closed and asks again', async () => {
      await startWithDeadDeliveries(0);
      page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT_MS);

      await page.goto(`${bridge.url}/admin/`);
      await page.locator('#key-input').fill('not-the-right-key-at-all');
      await page.locator('#key-submit').click();
      await expect.poll(() => page.locator('#key-error').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('That key was refused. Enter a valid admin API key.');

      expect(await page.locator('#console').isHidden()).toBe(true);
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    });
  },
);
