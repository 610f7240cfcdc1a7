import { afterEach, describe, expect, it } from 'vitest';

import { type AdminApp, startAdminApp } from './support/admin-app.ts';

const remapBody = {
  source: { id: 'abc123', type: 'GOOGLE_CALENDAR' },
  salesforceRecords: { opportunityId: '0065w000023STAmAAO' },
};

describe('POST /admin/meetings/remap', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it("when a remap in Momentum's shape is posted with flags in the query, then a remap delivery is queued, coalesced on the meeting, 202 with its id", async () => {
    harness = await startAdminApp();

    const response = await harness.post('/admin/meetings/remap?triggerSummary=true', remapBody);

    expect(response.status).toBe(202);
    expect(response.body.delivery).toMatchObject({ kind: 'remap', state: 'pending', meeting: 'source:GOOGLE_CALENDAR:abc123' });
    const job = await harness.store.getJob(response.body.delivery.id);
    expect(job).toMatchObject({
      kind: 'remap',
      coalesceKey: 'source:GOOGLE_CALENDAR:abc123',
      payload: { request: remapBody, flags: { triggerSummary: true, triggerAiSignals: false } },
    });
    expect(harness.logs.lines().find((line) => line.message === 'admin change')).toMatchObject({
      action: 'manualRemap',
      deliveryId: job!.id,
      meeting: 'source:GOOGLE_CALENDAR:abc123',
    });
  });

  it('when only meetingDetails identify the meeting, then the remap is accepted as the protocol allows', async () => {
    harness = await startAdminApp();

    const response = await harness.post('/admin/meetings/remap', {
      salesforceRecords: { accountId: '0015w00002AbCdEAAZ' },
      meetingDetails: { momentumMeetingId: 4711 },
    });

    expect(response.status).toBe(202);
    expect(response.body.delivery.meeting).toBe('momentum:4711');
  });

  it.each([
    [{ source: remapBody.source, salesforceRecords: {} }, 'salesforceRecords'],
    [{ salesforceRecords: remapBody.salesforceRecords }, ''],
    [{ ...remapBody, meetingDetails: { startTime: 'tomorrow' } }, 'meetingDetails.startTime'],
    [{ ...remapBody, triggerSummary: true }, ''],
  ])('when the body is %j, then 400 names %s and nothing is queued', async (body, field) => {
    harness = await startAdminApp();

    const response = await harness.post('/admin/meetings/remap', body);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_body');
    expect(response.body.error.details.map((issue: { path: string }) => issue.path)).toContain(field);
    expect(await harness.store.countJobs({})).toBe(0);
  });

  it('when a flag is not true or false, then 400 invalid_query and nothing is queued', async () => {
    harness = await startAdminApp();

    const response = await harness.post('/admin/meetings/remap?triggerAiSignals=yes', remapBody);

    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_query', details: [{ path: 'triggerAiSignals', message: 'expected true or false' }] });
    expect(await harness.store.countJobs({})).toBe(0);
  });
});

describe('POST /admin/meetings/import', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when an import is posted, then an import delivery with that request is queued on its meeting id, 202 with its id', async () => {
    harness = await startAdminApp();
    const body = {
      meeting: {
        id: 'ext-1',
        title: 'Discovery',
        startTime: '2026-05-08T13:00:00Z',
        host: { name: 'Ana', email: 'ana@example.com' },
        salesforceAccountId: '0015w00002AbCdEAAZ',
      },
      processImportedMeeting: true,
    };

    const response = await harness.post('/admin/meetings/import', body);

    expect(response.status).toBe(202);
    expect(await harness.store.getJob(response.body.delivery.id)).toMatchObject({
      kind: 'import',
      state: 'pending',
      payload: { request: body },
      // Imports of one meeting id coalesce, and a meeting imported once is not imported again.
      coalesceKey: 'import:ext-1',
    });
  });

  it('when the meeting is missing or malformed, then 400 and nothing is queued', async () => {
    harness = await startAdminApp();

    const missing = await harness.post('/admin/meetings/import', { processImportedMeeting: true });
    const badUrl = await harness.post('/admin/meetings/import', { meeting: { callUrl: 'not a url' } });

    expect(missing.status).toBe(400);
    expect(missing.body.error.details.map((issue: { path: string }) => issue.path)).toContain('meeting');
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.details.map((issue: { path: string }) => issue.path)).toContain('meeting.callUrl');
    expect(await harness.store.countJobs({})).toBe(0);
  });

  it.each([
    ['recordingUrl', 'javascript:alert(document.cookie)'],
    ['recordingUrl', 'data:text/html,<script>alert(1)</script>'],
    ['callUrl', 'javascript://meet.example.net/%0aalert(1)'],
    ['callUrl', 'data:,hello'],
    ['callUrl', 'mailto:ana@example.com'],
  ])('when meeting.%s is %j (not http or https), then 400 names the field and nothing is queued', async (field, link) => {
    harness = await startAdminApp();

    const response = await harness.post('/admin/meetings/import', { meeting: { id: 'ext-1', [field]: link } });

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_body');
    expect(response.body.error.details).toEqual([expect.objectContaining({ path: `meeting.${field}`, message: 'expected an absolute http or https URL' })]);
    expect(await harness.store.countJobs({})).toBe(0);
  });
});
