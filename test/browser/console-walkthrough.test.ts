import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { MOMENTUM_RATE_KEY } from '../../src/momentum/delivery-jobs.ts';
import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { eventNotification, ORG_ID, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { startTestBridge, type TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * A walk through every page of the operator console in headless Chromium, against the whole bridge
 * (startTestBridge) taking Outbound Messages from the sample org and delivering, paced at 5 calls a
 * minute, to a fake Momentum. Every page is checked for console errors, page errors and CSP
 * violations, and photographed at 1366×768 and 375×812 (test/browser/artifacts/, git-ignored),
 * where the phone width must not scroll the page sideways. One engine (SQLite) here: the console
 * only reads and writes through the admin API, whose every route is proven on both engines in
 * test/admin and test/routes, so a second Chromium walk would prove nothing new.
 */

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const ARTIFACTS = path.resolve(import.meta.dirname, 'artifacts');
const FIXTURE = readFileSync(path.resolve(import.meta.dirname, '..', 'fixtures', 'salesforce', 'event-opportunity.xml'), 'utf8');
const KEY = 'admin-key-walkthrough-0123456789';
const ORG_ORIGIN = 'https://example-dev-ed.my.salesforce.com';
const UI_TIMEOUT_MS = 15_000;
const WIDE = { width: 1366, height: 768 };
const PHONE = { width: 375, height: 812 };

/** The fixture's Event: WhatId an Opportunity, AccountId an Account. */
const FIXTURE_TITLE = 'Pricing review with Globex';
const FIXTURE_OPPORTUNITY = '0068d0000101XyZAAU';
const REJECTED_TITLE = 'Rejected review';

describe.skipIf(!hasChromium)(
  `the operator console, page by page, in headless Chromium${hasChromium ? '' : ` (skipped: ${CHROMIUM} is missing; apt-get install chromium)`}`,
  () => {
    let context: BrowserContext;
    let profile: string;
    let momentum: FakeMomentum;
    let bridge: TestBridge;
    let page: Page;
    const problems: string[] = [];
    const overflow: string[] = [];
    /** Chromium logs every 4xx answer as a console error: a test that provokes one says which, and how many. */
    const expectedLogs = new Map<number, number>();
    const failedLoad = (status: number) =>
      `console error: Failed to load resource: the server responded with a status of ${status} (${status === 400 ? 'Bad Request' : 'Not Found'})`;
    const expectAnswers = (status: 400 | 404, count = 1) => void expectedLogs.set(status, (expectedLogs.get(status) ?? 0) + count);

    const api = async (urlPath: string, init: RequestInit = {}) => {
      const answer = await fetch(`${bridge.url}/admin/${urlPath}`, {
        ...init,
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      });
      return (await answer.json()) as Record<string, unknown>;
    };

    /** Photographs the page as it is at both widths; at the phone's, the page itself must not scroll sideways. No id twice. */
    async function photograph(name: string): Promise<void> {
      // Labels and error slots point at ids: one id, one element.
      const duplicates = await page.evaluate(() => {
        const ids = [...document.querySelectorAll('[id]')].map((node) => node.id);
        return ids.filter((id, index) => ids.indexOf(id) !== index);
      });
      if (duplicates.length) problems.push(`${name}: duplicate ids ${duplicates.join(', ')}`);
      for (const line of await lowContrastText()) problems.push(`${name}: ${line}`);
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}-1366x768.png`), fullPage: true });
      await page.setViewportSize(PHONE);
      // The chart redraws at the new width in the next frame.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > PHONE.width) overflow.push(`${name}: the page is ${width} px wide at ${PHONE.width} px`);
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}-375x812.png`), fullPage: true });
      await page.setViewportSize(WIDE);
    }

    const openTab = async (name: string) => {
      await page.locator(`button.tab[data-tab="${name}"]`).click();
      await page.locator(`#${name}-view`).waitFor({ state: 'visible' });
    };

    /**
     * Visible text below WCAG AA: 4.5:1 against the colour behind it (3:1 from 24 px, or 18.66 px
     * bold). The background is the nearest opaque one up the tree; disabled controls are exempt.
     */
    const lowContrastText = () =>
      page.evaluate(() => {
        const rgb = (text: string) => (text.match(/[\d.]+/g) ?? []).map(Number);
        const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
          const f = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        const backgroundOf = (node: Element | null): number[] => {
          for (let at = node; at; at = at.parentElement) {
            const colour = rgb(getComputedStyle(at).backgroundColor);
            if (colour.length === 3 || (colour[3] ?? 0) > 0.5) return colour;
          }
          return [255, 255, 255];
        };
        const found = new Set<string>();
        for (const node of document.querySelectorAll('body *')) {
          if (!(node instanceof HTMLElement) || node.closest(':disabled, svg, [hidden]') || node.getClientRects().length === 0) continue;
          const text = [...node.childNodes]
            .filter((child) => child.nodeType === Node.TEXT_NODE)
            .map((child) => child.textContent?.trim() ?? '')
            .join('');
          if (text === '') continue;
          const style = getComputedStyle(node);
          const size = parseFloat(style.fontSize);
          const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
          const [a, b] = [luminance(rgb(style.color)), luminance(backgroundOf(node))];
          const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
          if (ratio < (large ? 3 : 4.5))
            found.add(`contrast ${ratio.toFixed(2)}:1 for "${text.slice(0, 30)}" (${style.color} on ${backgroundOf(node).join(',')})`);
        }
        return [...found];
      });

    /** The delivery a form just created, from the status line ("Remap #12 queued."). */
    async function createdDelivery(kind: 'Remap' | 'Import'): Promise<number> {
      const pattern = new RegExp(`^${kind} #(\\d+) queued\\.$`);
      await expect.poll(() => page.locator('#status').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(pattern);
      return Number(pattern.exec((await page.locator('#status').textContent()) ?? '')?.[1]);
    }

    const cspViolations = () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      momentum = await startFakeMomentum();
      // One meeting Momentum refuses, so the chart has a dead delivery to draw.
      momentum.script((request) =>
        (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title === REJECTED_TITLE
          ? replies.reject('no such meeting')
          : replies.accept(),
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

    it('when the console opens, then the quota panel shows the configured limit and the chart draws the messages posted', async () => {
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

    it('when an operator previews a pasted Outbound Message with a proposed mapping file, then both results show side by side and nothing reaches Momentum', async () => {
      const callsBefore = momentum.requests.length;
      const eventsBefore = ((await api('events')) as { items: unknown[] }).items.length;
      await openTab('preview');
      await page.locator('#preview-payload').fill(FIXTURE);
      await page.locator('#preview-mapping').fill(JSON.stringify({ sObjects: { Event: { triggerSummary: true } } }));
      await page.locator('#preview-submit').click();
      await page.locator('#preview-results[data-loaded="true"]').waitFor();

      const current = page.locator('#preview-compare .compare-row').first().locator('.result').first();
      const proposed = page.locator('#preview-compare .compare-row').first().locator('.result').nth(1);
      const shown = {
        outcome: await current.getAttribute('data-outcome'),
        rule: await current.getAttribute('data-rule'),
        request: JSON.parse((await current.locator('pre[data-field="request"]').textContent()) ?? 'null') as unknown,
        flags: await current.locator('dd').nth(1).textContent(),
        proposedFlags: await proposed.locator('dd').nth(1).textContent(),
        changed: await page.locator('#preview-compare .compare-row').first().getAttribute('data-changed'),
      };
      await photograph('03-preview-mapping');
      // Long enough for a delivery the preview had wrongly enqueued to reach the fake.
      await new Promise((resolve) => setTimeout(resolve, 1000));

      expect(shown).toEqual({
        outcome: 'remap',
        rule: 'sobject:Event',
        request: expect.objectContaining({ salesforceRecords: expect.objectContaining({ opportunityId: FIXTURE_OPPORTUNITY }) }),
        flags: 'triggerSummary=false, triggerAiSignals=false',
        proposedFlags: 'triggerSummary=true, triggerAiSignals=false',
        changed: 'true',
      });
      expect(momentum.requests.length).toBe(callsBefore);
      expect(((await api('events')) as { items: unknown[] }).items.length).toBe(eventsBefore);
    });

    it('when the preview is given a mapping file that is not JSON, or one the bridge refuses, then the error is shown next to it', async () => {
      await openTab('preview');
      let previewCalls = 0;
      const count = (request: { url(): string }) => void (request.url().endsWith('/admin/mapping/preview') && (previewCalls += 1));
      page.on('request', count);
      await page.locator('#preview-mapping').fill('{"sObjects": ');
      await page.locator('#preview-submit').click();
      await page.locator('#preview-mapping-error:not([hidden])').waitFor();
      const message = await page.locator('#preview-mapping-error').textContent();
      const invalid = await page.locator('#preview-mapping').getAttribute('aria-invalid');
      page.off('request', count);

      // Valid JSON, but not a mapping file MAPPING_FILE would take: the API's problem, at the same field.
      expectAnswers(400);
      await page.locator('#preview-mapping').fill(JSON.stringify({ sObjects: { Event: { enabled: 'no' } } }));
      await page.locator('#preview-submit').click();
      await page.locator('#preview-form[data-outcome="refused"]').waitFor();
      const fromApi = await page.locator('#preview-mapping-error').textContent();
      await photograph('03b-preview-mapping-refused');
      await page.locator('#preview-mapping').fill('');

      expect(message).toMatch(/^not valid JSON/);
      expect(invalid).toBe('true');
      expect(previewCalls).toBe(0);
      expect(fromApi).toMatch(/^sObjects\.Event\.enabled: /);
    });

    it('when an operator submits the remap form with mistakes, then each is shown next to its field, the API’s own issues included', async () => {
      await openTab('remap');
      // Before sending: no Salesforce id, a malformed host email.
      await page.locator('#remap-title').fill('Quarterly review');
      await page.locator('#remap-host').fill('not-an-address');
      await page.locator('#remap-submit').click();
      await page.locator('#remap-form[data-outcome="invalid"]').waitFor();
      const before = {
        records: await page.locator('#remap-records-error').textContent(),
        host: await page.locator('#remap-host-error').textContent(),
        hostInvalid: await page.locator('#remap-host').getAttribute('aria-invalid'),
      };
      await photograph('04-new-remap-invalid');

      // Past the form's checks, refused by the API's schema (a title longer than 255 characters).
      await page.locator('#remap-host').fill('');
      await page.locator('#remap-opportunityId').fill('0065w000023STAmAAO');
      await page.locator('#remap-title').fill('x'.repeat(300));
      expectAnswers(400);
      const refused = page.waitForResponse((answer) => answer.url().includes('/admin/meetings/remap'));
      await page.locator('#remap-submit').click();
      const status = (await refused).status();
      await page.locator('#remap-form[data-outcome="refused"]').waitFor();
      const fromApi = await page.locator('#remap-title-error').textContent();

      expect(before).toEqual({ records: 'give at least one of opportunity, account or lead id', host: 'expected an email address', hostInvalid: 'true' });
      expect(status).toBe(400);
      expect(fromApi).toBe('at most 255 characters');
    });

    it('when an operator sends a remap with Trigger summary, then the delivery opens and Momentum receives it with the flag', async () => {
      await openTab('remap');
      const callsBefore = momentum.requests.length;
      await page.locator('#remap-source-id').fill('walkthrough-meeting-1');
      await page.locator('#remap-source-type').fill('GOOGLE_CALENDAR');
      await page.locator('#remap-opportunityId').fill('0065w000023STAmAAO');
      await page.locator('#remap-title').fill('Walkthrough remap');
      await page.locator('#remap-trigger-summary').check();
      await page.locator('#remap-submit').click();
      const id = await createdDelivery('Remap');
      await page.locator('#deliveries-view').waitFor({ state: 'visible' });
      await page.locator(`#delivery-detail[data-id="${id}"][data-state="succeeded"]`).waitFor();
      const [sent] = (await momentum.waitFor(callsBefore + 1)).slice(callsBefore);
      const request = await page.locator('#delivery-detail pre[data-field="request"]').textContent();
      const remapFields = await page.locator('#remap-title').inputValue();

      expect(sent?.path).toBe('/v1/meeting/remap');
      expect(sent?.query).toEqual({ triggerSummary: 'true' });
      expect(sent?.body).toEqual({
        source: { id: 'walkthrough-meeting-1', type: 'GOOGLE_CALENDAR' },
        salesforceRecords: { opportunityId: '0065w000023STAmAAO' },
        meetingDetails: { title: 'Walkthrough remap' },
      });
      expect(JSON.parse(request ?? 'null')).toEqual(sent?.body);
      expect(remapFields).toBe('');
    });

    it('when an operator fills the import form, then bad attendees JSON is caught next to the field, and the corrected import opens its delivery', async () => {
      await openTab('import');
      await page.locator('#import-id').fill('walkthrough-import-1');
      await page.locator('#import-title').fill('Imported walkthrough');
      await page.locator('#import-start').fill('2026-03-02T16:00');
      await page.locator('#import-attendees').fill('[{"email": "ana@example.com",');
      await page.locator('#import-submit').click();
      await page.locator('#import-form[data-outcome="invalid"]').waitFor();
      const attendeesError = await page.locator('#import-attendees-error').textContent();
      await photograph('05-new-import-invalid');

      const callsBefore = momentum.requests.length;
      await page.locator('#import-attendees').fill('[{"email": "ana@example.com", "name": "Ana", "isInternal": true}]');
      await page.locator('#import-submit').click();
      const id = await createdDelivery('Import');
      await page.locator(`#delivery-detail[data-id="${id}"][data-state="succeeded"]`).waitFor();
      const [sent] = (await momentum.waitFor(callsBefore + 1)).slice(callsBefore);

      expect(attendeesError).toMatch(/^not valid JSON/);
      expect(sent?.body).toMatchObject({
        meeting: { id: 'walkthrough-import-1', title: 'Imported walkthrough', attendees: [{ email: 'ana@example.com', name: 'Ana', isInternal: true }] },
        processImportedMeeting: true,
      });
    });

    it('when Momentum has paused the bridge (a 429 block), then the quota panel says until when, with the next stats refresh', async () => {
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

    it('when an operator opens an inbound event and previews it, then today’s rules are shown for it; the calendars view shows too', async () => {
      await openTab('events');
      const newest = page.locator('#events-table tbody tr[data-id]').first();
      const eventId = await newest.getAttribute('data-id');
      await newest.click();
      await page.locator('#event-detail pre[data-field="raw"]').waitFor();
      await photograph('06-inbound-events');

      const callsBefore = momentum.requests.length;
      await page.locator('#event-preview').click();
      await page.locator('#preview-view').waitFor({ state: 'visible' });
      const filled = await page.locator('#preview-event').inputValue();
      await page.locator('#preview-submit').click();
      await page.locator('#preview-results[data-loaded="true"]').waitFor();
      const outcome = await page.locator('#preview-compare .result').first().getAttribute('data-outcome');
      const single = await page.locator('#preview-compare.single').count();
      expect(filled).toBe(eventId);
      expect(outcome).toBe('remap');
      expect(single).toBe(1);
      expect(momentum.requests.length).toBe(callsBefore);

      // No calendar provider on this bridge: /admin/calendars answers 404, and the view says so.
      expectAnswers(404);
      await openTab('calendars');
      await expect.poll(() => page.locator('#calendars-note').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/No calendar provider/);
      await photograph('07-calendars');
    });
  },
);
