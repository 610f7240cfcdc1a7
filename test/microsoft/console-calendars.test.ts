import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { ANA, fakeMicrosoft, startMicrosoftBridge } from './support/ms-bridge.ts';
import { expectSynced, settled } from './support/ms-setup.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const KEY = 'admin-key-for-console-0001';

const cleanups = cleanupAfterEach();

describe.skipIf(!hasChromium)(`the console's Calendars view in headless Chromium${hasChromium ? '' : ' (skipped: /usr/bin/chromium is missing)'}`, () => {
  describeEachEngine('with the bridge', (engine) => {
    it('when an operator opens Calendars, then each Microsoft 365 mailbox shows its subscription state, expiry and last sync, with no page error', async () => {
      // Arrange
      const microsoft = await fakeMicrosoft();
      const momentum = await startFakeMomentum();
      cleanups.push(microsoft.close, momentum.close);
      const running = await startMicrosoftBridge(microsoft, momentum.url, { engine, env: { ADMIN_API_KEYS: KEY } });
      cleanups.push(running.close);
      await waitFor('the first sync', async () => (await running.rows(`SELECT 1 FROM microsoft_mailboxes WHERE last_sync_at IS NOT NULL`)).length === 1);
      await settled(running);
      await expectSynced(running);
      const profile = mkdtempSync(path.join(tmpdir(), 'console-calendars-'));
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'],
      });
      cleanups.push(
        () => rmSync(profile, { recursive: true, force: true }),
        () => context.close(),
      );
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())));

      // Act
      await page.goto(`${running.bridge.url}/admin/`);
      await page.locator('#key-input').fill(KEY);
      await page.locator('#key-submit').click();
      await page.locator('#console').waitFor({ state: 'visible' });
      await page.locator('button.tab[data-tab="calendars"]').click();
      const row = page.locator(`#calendars-table tr[data-calendar="${ANA}"]`);
      await row.waitFor();

      // Assert
      const cells = await row.locator('td').allTextContents();
      expect(cells[0]).toBe('Microsoft 365');
      expect(cells[1]).toBe(ANA);
      expect(cells[2]).toBe('live');
      expect(cells[3]).not.toBe('—');
      expect(cells[4]).not.toBe('—');
      expect(cells[5]).toBe('');
      expect(problems).toEqual([]);
    });
  });
});
