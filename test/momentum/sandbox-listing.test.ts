import { afterEach, describe, expect, it } from 'vitest';

import { createMomentumClient, type MomentumClient } from '../../src/momentum/client.ts';
import { type SandboxReceiver, startSandboxReceiver } from '../../src/momentum/sandbox-receiver.ts';
import { captureLogs } from '../support/log-capture.ts';

const noFlags = { triggerSummary: false, triggerAiSignals: false };
const START = '2026-03-02T16:00:00.000Z';
const window = { from: Date.parse('2026-03-02T16:00:00.000Z'), to: Date.parse('2026-03-02T20:00:00.000Z'), pageNumber: 1, pageSize: 50 };
const details = { title: 'Pricing review', startTime: START, hostEmail: 'rep@acme.example' };

describe('GET /v1/meetings on the sandbox receiver', () => {
  let receiver: SandboxReceiver | undefined;
  let client: MomentumClient | undefined;

  afterEach(async () => {
    await client?.close();
    await receiver?.close();
    client = receiver = undefined;
  });

  const start = async () => {
    receiver = await startSandboxReceiver(captureLogs().logger);
    client = createMomentumClient({
      apiBaseUrl: receiver.url,
      receiverUrl: receiver.url,
      importPath: '/user-provided-meeting',
      apiKey: 'sandbox',
      timeoutMs: 2_000,
    });
    return { receiver, client };
  };

  it('when nothing was received, then the listing is empty', async () => {
    const { client } = await start();

    const result = await client.listMeetings(window, {});

    expect(result.page).toEqual({ meetings: [], pageCount: 1, unreadable: 0 });
  });

  it('when an import and then a remap of it arrive, then the imported meeting is listed with the remapped ids', async () => {
    // Arrange
    const { client } = await start();
    await client.importMeeting(
      {
        meeting: {
          id: 'zoom-1',
          ...{ title: details.title, startTime: START },
          endTime: '2026-03-02T17:00:00.000Z',
          host: { email: details.hostEmail },
          salesforceAccountId: '0015w000023STAmAAO',
        },
      },
      { idempotencyKey: '1' },
    );

    // Act
    await client.remap({ meetingDetails: details, salesforceRecords: { opportunityId: '0065w000023STAmAAO', accountId: '0015w000023STBnAAO' } }, noFlags, {
      idempotencyKey: '2',
    });
    const result = await client.listMeetings(window, {});

    // Assert
    expect(result.page?.meetings).toEqual([
      {
        id: '1',
        title: 'Pricing review',
        startTime: START,
        endTime: '2026-03-02T17:00:00.000Z',
        host: { email: 'rep@acme.example' },
        attendees: [],
        salesforceOpportunityId: '0065w000023STAmAAO',
        salesforceAccountId: '0015w000023STBnAAO',
      },
    ]);
  });

  it('when a remap names a meeting it does not hold, then it becomes one; by its Momentum id a later remap reaches it', async () => {
    // Arrange
    const { client } = await start();
    await client.remap({ meetingDetails: details, salesforceRecords: { accountId: '0015w000023STAmAAO' } }, noFlags, { idempotencyKey: '1' });

    // Act
    await client.remap({ meetingDetails: { momentumMeetingId: 1 }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } }, noFlags, {
      idempotencyKey: '2',
    });
    const result = await client.listMeetings(window, {});

    // Assert: a remap replaces the ids; the account it no longer names is gone.
    expect(result.page?.meetings).toEqual([
      { id: '1', title: 'Pricing review', startTime: START, host: { email: 'rep@acme.example' }, attendees: [], salesforceOpportunityId: '0065w000023STAmAAO' },
    ]);
  });

  it('when meetings start outside the window or do not fit a page, then the listing leaves them out and counts the pages', async () => {
    // Arrange
    const { client } = await start();
    const starts = ['2026-03-02T15:59:00.000Z', '2026-03-02T16:00:00.000Z', '2026-03-02T16:30:00.000Z', '2026-03-02T17:00:00.000Z'];
    for (const [index, startTime] of starts.entries()) {
      await client.remap({ meetingDetails: { ...details, startTime }, salesforceRecords: { accountId: '0015w000023STAmAAO' } }, noFlags, {
        idempotencyKey: String(index),
      });
    }

    // Act
    const first = await client.listMeetings({ ...window, pageSize: 2 }, {});
    const second = await client.listMeetings({ ...window, pageSize: 2, pageNumber: 2 }, {});

    // Assert
    expect(first.page?.meetings.map((meeting) => meeting.startTime)).toEqual(starts.slice(1, 3));
    expect(second.page?.meetings.map((meeting) => meeting.startTime)).toEqual(starts.slice(3));
    expect([first.page?.pageCount, second.page?.pageCount]).toEqual([2, 2]);
  });

  it('when a listing asks for more than 50 a page or both record filters, then the sandbox refuses it with 400 as Momentum does', async () => {
    const { receiver } = await start();
    const base = `${receiver.url}/v1/meetings?from=${START}&to=${START}`;

    const tooMany = await fetch(`${base}&pageSize=51`);
    const both = await fetch(`${base}&salesforceAccountId=0015w000023STAmAAO&salesforceOpportunityId=0065w000023STAmAAO`);

    expect([tooMany.status, both.status]).toEqual([400, 400]);
    expect(await tooMany.json()).toEqual({ error: 'pageSize must be 1 to 50' });
  });
});
