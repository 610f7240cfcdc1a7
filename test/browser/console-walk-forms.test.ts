import { describe, expect, it } from 'vitest';

import { hasChromium, useConsoleWalk, WALK_TITLE } from './support/console-walk.ts';

/*
 * Part of the walk through every page of the operator console in headless Chromium (one browser for
 * this file; the harness, and why one engine, in support/console-walk.ts): the remap and import
 * forms: mistakes shown next to their fields, and what a sent form delivers to Momentum.
 */

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  const walk = useConsoleWalk();
  const { photograph, openTab, createdDelivery, expectAnswers } = walk;

  it('when an operator submits the remap form with mistakes, then each is shown next to its field, the API’s own issues included', async () => {
    const { page } = walk;
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
    const { page, momentum } = walk;
    await openTab('remap');
    const callsBefore = momentum.requests.length;
    await page.locator('#remap-source-id').fill('walkthrough-meeting-1');
    await page.locator('#remap-source-type').fill('GOOGLE_CALENDAR');
    await page.locator('#remap-opportunityId').fill('0065w000023STAmAAO');
    await page.locator('#remap-title').fill('Walkthrough remap');
    await page.locator('#remap-trigger-summary').check();
    await page.locator('#remap-submit').click();
    const number = await createdDelivery('Remap');
    await page.locator('#deliveries-view').waitFor({ state: 'visible' });
    await page.locator(`#delivery-detail[data-number="${number}"][data-state="succeeded"]`).waitFor();
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
    const { page, momentum } = walk;
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
    const number = await createdDelivery('Import');
    await page.locator(`#delivery-detail[data-number="${number}"][data-state="succeeded"]`).waitFor();
    const [sent] = (await momentum.waitFor(callsBefore + 1)).slice(callsBefore);

    expect(attendeesError).toMatch(/^not valid JSON/);
    expect(sent?.body).toMatchObject({
      meeting: { id: 'walkthrough-import-1', title: 'Imported walkthrough', attendees: [{ email: 'ana@example.com', name: 'Ana', isInternal: true }] },
      processImportedMeeting: true,
    });
  });
});
