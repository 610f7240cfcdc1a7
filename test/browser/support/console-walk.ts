import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

import { type FakeMomentum, replies, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import { eventNotification, ORG_ID, outboundMessage } from '../../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../../salesforce/support/post-outbound-message.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';
import { waitFor } from '../../support/wait-for.ts';
import { lowContrastText } from './contrast.ts';

/*
 * The harness of the walk through the operator console in headless Chromium, one browser per test
 * file, against the whole bridge (startTestBridge) taking Outbound Messages from the sample org and
 * delivering, paced at 5 calls a minute, to a fake Momentum. After every test the page is checked
 * for console errors, page errors and CSP violations; `photograph` takes it at 1366×768 and 375×812
 * (test/browser/artifacts/, git-ignored), where the phone width must not scroll the page sideways.
 * One engine (SQLite) here: the console only reads and writes through the admin API, whose every
 * route is proven on both engines in test/admin and test/routes, so a second Chromium walk would
 * prove nothing new.
 */

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
/** The title every walk file gives its describe, so the walk reads as one suite. */
export const WALK_TITLE = `the operator console, page by page, in headless Chromium${hasChromium ? '' : ` (skipped: ${CHROMIUM} is missing; apt-get install chromium)`}`;

const ARTIFACTS = path.resolve(import.meta.dirname, '..', 'artifacts');
export const FIXTURE = readFileSync(path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'salesforce', 'event-opportunity.xml'), 'utf8');
const KEY = 'admin-key-walkthrough-0123456789';
export const ORG_ORIGIN = 'https://example-dev-ed.my.salesforce.com';
export const UI_TIMEOUT_MS = 15_000;
export const WIDE = { width: 1366, height: 768 };
export const PHONE = { width: 375, height: 812 };

/** The fixture's Event: WhatId an Opportunity, AccountId an Account. */
export const FIXTURE_TITLE = 'Pricing review with Globex';
export const FIXTURE_OPPORTUNITY = '0068d0000101XyZAAU';
const REJECTED_TITLE = 'Rejected review';

export interface ConsoleWalk {
  /** The console, signed in; one page for the whole file. */
  readonly page: Page;
  readonly bridge: TestBridge;
  readonly momentum: FakeMomentum;
  /** The admin API's JSON answer to an authorised call. */
  api(urlPath: string, init?: RequestInit): Promise<Record<string, unknown>>;
  /** Photographs the page as it is at both widths, checking its contrast at each; at the phone's, the page itself must not scroll sideways. No id twice. */
  photograph(name: string): Promise<void>;
  openTab(name: string): Promise<void>;
  /** The number of the delivery a form just created, from the status line ("Remap #12 queued."). */
  createdDelivery(kind: 'Remap' | 'Import'): Promise<number>;
  /** Chromium logs every 4xx answer as a console error: a test that provokes one says which, and how many. */
  expectAnswers(status: 400 | 404, count?: number): void;
}

export interface ConsoleWalkOptions {
  /** Settings on top of the walk's own (asked once, before the bridge starts: a fake it points at may start here). */
  env?: () => Promise<Record<string, string>>;
  /** More for the bridge to have taken once the three meetings are through, before Chromium opens. */
  seed?: (walk: Pick<ConsoleWalk, 'bridge' | 'momentum' | 'api'>) => Promise<void>;
}

/**
 * Registers, for the enclosing describe: a bridge that has taken three meetings (two remapped, one
 * refused by Momentum, so dead), Chromium signed in to its console, the checks after every test,
 * and the teardown.
 */
export function useConsoleWalk(options: ConsoleWalkOptions = {}): ConsoleWalk {
  let context: BrowserContext;
  let profile: string;
  let momentum: FakeMomentum;
  let bridge: TestBridge;
  let page: Page;
  const problems: string[] = [];
  const overflow: string[] = [];
  const expectedLogs = new Map<number, number>();
  const failedLoad = (status: number) =>
    `console error: Failed to load resource: the server responded with a status of ${status} (${status === 400 ? 'Bad Request' : 'Not Found'})`;

  const api = async (urlPath: string, init: RequestInit = {}) => {
    const answer = await fetch(`${bridge.url}/admin/${urlPath}`, {
      ...init,
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    });
    return (await answer.json()) as Record<string, unknown>;
  };

  async function photograph(name: string): Promise<void> {
    // Labels and error slots point at ids: one id, one element.
    const duplicates = await page.evaluate(() => {
      const ids = [...document.querySelectorAll('[id]')].map((node) => node.id);
      return ids.filter((id, index) => ids.indexOf(id) !== index);
    });
    if (duplicates.length) problems.push(`${name}: duplicate ids ${duplicates.join(', ')}`);
    for (const line of await lowContrastText(page)) problems.push(`${name} at ${WIDE.width} px: ${line}`);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-1366x768.png`), fullPage: true });
    await page.setViewportSize(PHONE);
    // The chart redraws at the new width in the next frame.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width > PHONE.width) overflow.push(`${name}: the page is ${width} px wide at ${PHONE.width} px`);
    // The phone's layout has its own colours to get right (cards, the views menu).
    for (const line of await lowContrastText(page)) problems.push(`${name} at ${PHONE.width} px: ${line}`);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-375x812.png`), fullPage: true });
    await page.setViewportSize(WIDE);
  }

  const cspViolations = () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    momentum = await startFakeMomentum();
    // One meeting Momentum refuses, so the chart has a dead delivery to draw.
    momentum.script((request) =>
      (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title === REJECTED_TITLE ? replies.reject('no such meeting') : replies.accept(),
    );
    bridge = await startTestBridge({
      env: {
        ADMIN_API_KEYS: KEY,
        ADMIN_AUTH_FAILURE_LIMIT: 'off',
        SALESFORCE_ORG_IDS: ORG_ID,
        MOMENTUM_API_KEY: 'momentum-walkthrough-key-0123',
        MOMENTUM_API_BASE_URL: momentum.url,
        MOMENTUM_RECEIVER_URL: momentum.url,
        MOMENTUM_RATE_LIMIT: '5/1m',
        RETRY_SCHEDULE: '0,20',
        ...(await options.env?.()),
      },
    });
    // Three Outbound Messages' worth of meetings: two remapped, one refused by Momentum (dead).
    const second = outboundMessage({
      notifications: [
        eventNotification(2, { Subject: 'Renewal call with Initech', WhatId: '0068d0000202XyZAAU' }),
        eventNotification(3, { Subject: REJECTED_TITLE, WhatId: '0068d0000303XyZAAU' }),
      ],
    });
    for (const xml of [FIXTURE, second]) expect((await postOutboundMessage(bridge.url, xml)).status).toBe(200);
    await waitFor('the three deliveries to end', async () => {
      const page = (await api('deliveries')) as { items: Array<{ state: string }> };
      return page.items.length === 3 && page.items.every((item) => item.state === 'succeeded' || item.state === 'dead');
    });
    await options.seed?.({ bridge, momentum, api });

    profile = mkdtempSync(path.join(tmpdir(), 'console-walkthrough-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: WIDE,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'],
    });
    page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    // Installed before the page's own scripts run, so a violation while it loads is seen too.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective}: ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`),
      );
    });
    await page.goto(`${bridge.url}/admin/`);
    await page.locator('#key-input').fill(KEY);
    await page.locator('#key-submit').click();
    await page.locator('#console').waitFor({ state: 'visible' });
  });

  afterEach(async () => {
    // Every page: no console error, no page error, no CSP violation, no sideways scroll on a phone.
    const logged = problems.splice(0);
    for (const [status, count] of expectedLogs) {
      for (let left = count; left > 0; left -= 1) {
        const at = logged.indexOf(failedLoad(status));
        if (at >= 0) logged.splice(at, 1);
        else logged.push(`expected a ${status} answer that never came`);
      }
    }
    expectedLogs.clear();
    const seen = { problems: logged, overflow: overflow.splice(0), csp: await cspViolations() };
    await page.evaluate(() => void (window as unknown as { cspViolations: string[] }).cspViolations.splice(0));
    expect(seen).toEqual({ problems: [], overflow: [], csp: [] });
  });

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await bridge?.stop();
    await momentum?.close();
  });

  return {
    get page() {
      return page;
    },
    get bridge() {
      return bridge;
    },
    get momentum() {
      return momentum;
    },
    api,
    photograph,
    async openTab(name) {
      await page.locator(`button.tab[data-tab="${name}"]`).click();
      await page.locator(`#${name}-view`).waitFor({ state: 'visible' });
    },
    async createdDelivery(kind) {
      const pattern = new RegExp(`^${kind} #(\\d+) queued\\.$`);
      await expect.poll(() => page.locator('#status').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(pattern);
      return Number(pattern.exec((await page.locator('#status').textContent()) ?? '')?.[1]);
    },
    expectAnswers: (status, count = 1) => void expectedLogs.set(status, (expectedLogs.get(status) ?? 0) + count),
  };
}
