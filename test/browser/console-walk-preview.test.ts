import { describe, expect, it } from 'vitest';

import { FIXTURE, FIXTURE_OPPORTUNITY, hasChromium, UI_TIMEOUT_MS, useConsoleWalk, WALK_TITLE } from './support/console-walk.ts';

/*
 * Part of the walk through every page of the operator console in headless Chromium (one browser for
 * this file; the harness, and why one engine, in support/console-walk.ts): the mapping preview (a
 * pasted Outbound Message, a refused mapping file, an inbound event previewed from its page) and
 * the calendars view.
 */

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  const walk = useConsoleWalk();
  const { api, photograph, openTab, expectAnswers } = walk;

  it('when an operator previews a pasted Outbound Message with a proposed mapping file, then both results show side by side and nothing reaches Momentum', async () => {
    const { page, momentum } = walk;
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
    const { page } = walk;
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

  it('when an operator opens an inbound event and previews it, then today’s rules are shown for it; the calendars view shows too', async () => {
    const { page, momentum } = walk;
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
});
