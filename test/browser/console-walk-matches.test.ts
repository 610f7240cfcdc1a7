import { afterAll, describe, expect, it } from 'vitest';

import { keyFingerprint } from '../../src/admin/api-keys.ts';
import { startTiedSalesforce, TIED_ACCOUNT, TIED_OPPORTUNITIES, type TiedSalesforce, tiedSalesforceSettings } from '../admin/support/tied-salesforce.ts';
import { postCalendarEvent, TEAMS_MEETING, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { waitFor } from '../support/wait-for.ts';
import { hasChromium, UI_TIMEOUT_MS, useConsoleWalk, WALK_TITLE } from './support/console-walk.ts';

/*
 * Part of the walk through the operator console in headless Chromium (one browser for this file;
 * the harness, and why one engine, in support/console-walk.ts): "why this record?". The bridge also
 * takes a signed calendar meeting whose attendee's Account has two equal opportunities (a loopback
 * Salesforce org), so it holds an ambiguous match; the operator pins one from the Ambiguous view and
 * sees it confirmed, then reads the delivery's "Why this record" and the meeting's page.
 */

const BUYER = 'hank.buyer@globex.test';
const REASON = 'Hank confirmed the expansion is this call';
const [, PICKED] = TIED_OPPORTUNITIES;
const KEY_FINGERPRINT = keyFingerprint('admin-key-walkthrough-0123456789');

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  let org: TiedSalesforce | undefined;
  const walk = useConsoleWalk({
    async env() {
      org = await startTiedSalesforce(BUYER);
      // Budget enough for this file's remaps beside the three meetings every walk starts with.
      return { ...tiedSalesforceSettings(org), CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET, INTERNAL_EMAIL_DOMAINS: 'example.com', MOMENTUM_RATE_LIMIT: '60/1m' };
    },
    async seed({ bridge, api }) {
      const response = await postCalendarEvent(bridge.url, JSON.stringify({ ...TEAMS_MEETING, id: 'teams-42' }), { id: 'msg_walk_1' });
      expect(response.status).toBe(202);
      await waitFor('the tie to be matched and its Account sent', async () => {
        const queue = (await api('matches?outcome=ambiguous')) as { items: Array<{ eventId: number }> };
        const deliveries = (await api('deliveries?match=ambiguous')) as { items: Array<{ state: string }> };
        return queue.items.length === 1 && deliveries.items[0]?.state === 'succeeded';
      });
    },
  });
  afterAll(async () => {
    await org?.close();
  });

  it('when the operator pins a tied candidate from the Ambiguous view, then it is confirmed there and the remap reaches Momentum with it', async () => {
    const { page, momentum, photograph, openTab } = walk;
    const sentBefore = momentum.requests.length;
    await openTab('ambiguous');
    const card = page.locator('#ambiguous-list article.queue-item');
    await card.waitFor();
    const summary = await card.locator('[data-field="match-summary"]').textContent();
    const statuses = await card.locator('table.candidates tbody tr [data-field="status"]').allTextContents();
    await photograph('09-ambiguous-queue');

    const row = card.locator(`table.candidates tbody tr[data-id="${PICKED}"]`);
    await row.locator('button.pin-open').click();
    await row.locator('button.pin-confirm').click();
    const refusal = await row.locator('.field-error').textContent();
    await row.locator('input').fill(REASON);
    await row.locator('button.pin-confirm').click();
    const confirmed = card.locator('[data-field="confirm"][data-confirmed="true"]');
    await confirmed.waitFor({ timeout: UI_TIMEOUT_MS * 2 });
    const confirmation = await confirmed.textContent();
    const [remap] = (await momentum.waitFor(sentBefore + 1)).slice(sentBefore);
    await photograph('10-ambiguous-pinned');

    expect(summary).toBe(`Ambiguous: 2 opportunities tie (${TIED_OPPORTUNITIES.join(', ')}); Account ${TIED_ACCOUNT} sent alone`);
    expect(statuses).toEqual(['tied', 'tied']);
    expect(refusal).toBe('Say why this record: the reason is kept with the pin.');
    expect(confirmation).toBe(`Confirmed: Pinned by admin key ${KEY_FINGERPRINT}: ${REASON}. Delivery #${await newestDeliveryNumber()} succeeded.`);
    expect((remap!.body as { salesforceRecords: object }).salesforceRecords).toEqual({ opportunityId: PICKED });
    expect(momentum.requests).toHaveLength(sentBefore + 1);
    expect(((await walk.api('matches?outcome=ambiguous')) as { items: unknown[] }).items).toEqual([]);
  });

  it('when the tie’s delivery is opened, then Why this record shows the sentence, the candidates and the policy, and its meeting page shows the pin, the history and the timeline', async () => {
    const { page, photograph, openTab } = walk;
    await openTab('deliveries');
    const tieDelivery = (await walk.api('deliveries?match=ambiguous')) as { items: Array<{ id: number }> };
    await page.locator(`#deliveries-table tbody tr[data-id="${tieDelivery.items[0]!.id}"] td`).nth(1).click();
    const why = page.locator('#delivery-detail [data-field="why"]');
    await why.waitFor();
    const firstLine = await why.locator(':scope > :nth-child(2)').getAttribute('data-field');
    const policy = await why.locator('[data-field="policy"]').textContent();
    const candidates = await why.locator('table.candidates tbody tr').count();
    const rule = await page.locator('#delivery-detail [data-field="origin"] [data-field="rule"]').textContent();
    await photograph('11-delivery-why');

    await why.locator('[data-field="meeting-link"]').click();
    const meeting = page.locator('#meeting-detail');
    await meeting.locator('#meeting-unpin').waitFor();
    const pin = await meeting.locator('[data-field="meeting-pin"]').textContent();
    const newest = await meeting.locator('[data-field="why"] [data-field="match-summary"]').textContent();
    const history = await meeting.locator('[data-field="matches"] tbody tr').count();
    const deliveries = await meeting.locator('[data-field="timeline"] > li[data-type="delivery"]').count();
    const sources = await meeting.locator('[data-field="sources"] li').allTextContents();
    await photograph('12-meeting-page');

    expect(firstLine).toBe('match-summary');
    expect(policy).toBe(`account-only: sent Account ${TIED_ACCOUNT} without an opportunity`);
    expect(candidates).toBe(2);
    expect(rule).toBe('ambiguous');
    expect(pin).toContain(`${PICKED} by admin key ${KEY_FINGERPRINT}`);
    expect(pin).toContain(REASON);
    expect(newest).toBe(`Pinned by admin key ${KEY_FINGERPRINT}: ${REASON}`);
    expect(history).toBe(2);
    expect(deliveries).toBe(2);
    // The signed meeting is its meeting's one source so far: listed as this page.
    expect(sources).toEqual([expect.stringContaining('calendar (this page)')]);
  });

  async function newestDeliveryNumber(): Promise<number> {
    const pinned = (await walk.api('deliveries?match=pinned')) as { items: Array<{ number: number }> };
    return pinned.items[0]!.number;
  }
  it('when the operator previews a signed body of the same tie, then the preview shows the match record it would store, and nothing reaches Momentum', async () => {
    const { page, momentum, photograph, openTab } = walk;
    const sentBefore = momentum.requests.length;
    await openTab('preview');
    await page.locator('#preview-mode-calendar').check();
    await page.locator('#preview-payload').fill(JSON.stringify({ ...TEAMS_MEETING, id: 'teams-preview' }));
    await page.locator('#preview-submit').click();
    await page.locator('#preview-results[data-loaded="true"]').waitFor();
    const summary = await page.locator('#preview-compare .why-record [data-field="match-summary"]').first().textContent();
    const tied = await page.locator('#preview-compare .why-record table.candidates tbody tr').count();
    await photograph('13-preview-why-this-record');

    expect(summary).toMatch(/^Ambiguous: 2 opportunities tie/);
    expect(tied).toBe(2);
    expect(momentum.requests.length).toBe(sentBefore);
  });
});
