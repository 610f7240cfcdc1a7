import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createMomentumClient, type MomentumClient } from '../../src/momentum/client.ts';
import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';

const API_KEY = 'test-key-1234567890';
const FROM = Date.parse('2026-03-02T16:00:00.000Z');
const TO = Date.parse('2026-03-02T20:00:00.000Z');
const query = { from: FROM, to: TO, pageNumber: 2, pageSize: 50 };

describe('createMomentumClient().listMeetings', () => {
  let fake: FakeMomentum;
  let client: MomentumClient;

  beforeEach(async () => {
    fake = await startFakeMomentum();
    client = createMomentumClient({
      apiBaseUrl: fake.url,
      receiverUrl: 'http://127.0.0.1:9',
      importPath: '/user-provided-meeting',
      apiKey: API_KEY,
      timeoutMs: 2_000,
    });
  });
  afterEach(async () => {
    await client.close();
    await fake.close();
  });

  it('when a page is asked for, then it is a GET of /v1/meetings on the API host with the window, the page and the key, and no body', async () => {
    // Act
    const result = await client.listMeetings({ ...query, salesforceOpportunityId: '0065w000023STAmAAO' }, {});

    // Assert
    expect(result.call).toMatchObject({ kind: 'success', status: 200 });
    const seen = fake.requests[0]!;
    expect(seen).toMatchObject({ method: 'GET', path: '/v1/meetings', rawBody: '' });
    expect(seen.query).toEqual({
      from: '2026-03-02T16:00:00.000Z',
      to: '2026-03-02T20:00:00.000Z',
      pageNumber: '2',
      pageSize: '50',
      salesforceOpportunityId: '0065w000023STAmAAO',
    });
    expect(seen.headers['x-api-key']).toBe(API_KEY);
    expect(seen.headers['idempotency-key']).toBeUndefined();
    expect(seen.headers['content-type']).toBeUndefined();
  });

  it('when the answer carries extra fields, a transcript, an unreadable meeting and U+0000, then the page keeps what the bridge reads, storable', async () => {
    // Arrange
    fake.queue(
      replies.status(200, {
        meetings: [
          {
            id: 4711,
            title: 'Pricing\u0000 review',
            startTime: '2026-03-02T16:00:00.000Z',
            host: { email: 'rep@acme.example', name: null },
            attendees: [{ email: 'buyer@globex.example', isInternal: false, salesforceLeadId: '00Q5w00001XYZabEAF' }, 'not an attendee'],
            transcript: { entries: [{ speaker: 'rep', text: 'hello' }] },
            salesforceOpportunityId: '0065w000023STAmAAO',
            salesforceAccountId: null,
            somethingNew: true,
          },
          { title: 'no id' },
        ],
        pageCount: 3,
        total: 120,
      }),
    );

    // Act
    const result = await client.listMeetings(query, {});

    // Assert
    expect(result.problem).toBeUndefined();
    expect(result.page).toEqual({
      meetings: [
        {
          id: '4711',
          title: 'Pricing review',
          startTime: '2026-03-02T16:00:00.000Z',
          host: { email: 'rep@acme.example' },
          attendees: [{ email: 'buyer@globex.example', isInternal: false, salesforceLeadId: '00Q5w00001XYZabEAF' }],
          salesforceOpportunityId: '0065w000023STAmAAO',
        },
      ],
      pageCount: 3,
      unreadable: 1,
    });
  });

  it('when a 2xx is not a listing, then the call succeeded but the page is missing and the problem says why', async () => {
    fake.queue(replies.status(200, { data: [] }));

    const result = await client.listMeetings(query, {});

    expect(result.call.kind).toBe('success');
    expect(result.page).toBeUndefined();
    expect(result.problem).toMatch(/^the listing is not \{meetings: \[\.\.\.\], pageCount\}: meetings: /);
  });

  it('when Momentum answers 429 with Retry-After, then the call is classified like a remap and no page is read', async () => {
    fake.queue(replies.rateLimited('30'));

    const result = await client.listMeetings(query, {});

    expect(result).toEqual({ call: expect.objectContaining({ kind: 'http_error', status: 429, retryAfter: '30' }) });
  });

  it('when Momentum hangs past the timeout, then the call is a timeout', async () => {
    fake.queue(replies.hang());

    const result = await client.listMeetings(query, {});

    expect(result.call.kind).toBe('timeout');
    expect(fake.requests).toHaveLength(1);
  });

  it('when a query breaks the listing rules (more than 50 a page, both record filters), then it throws and nothing is sent', async () => {
    await expect(client.listMeetings({ ...query, pageSize: 51 }, {})).rejects.toThrow(/pageSize/);
    await expect(
      client.listMeetings({ ...query, salesforceAccountId: '0015w000023STAmAAO', salesforceOpportunityId: '0065w000023STAmAAO' }, {}),
    ).rejects.toThrow(/not both/);
    expect(fake.requests).toHaveLength(0);
  });

  it('when the answer leaves pageCount out, then a full page means another may follow and a short one is the last', async () => {
    const meetings = Array.from({ length: 2 }, (_, index) => ({ id: index + 1, startTime: '2026-03-02T16:00:00.000Z' }));
    fake.queue(replies.status(200, { meetings }), replies.status(200, { meetings }));

    const full = await client.listMeetings({ ...query, pageNumber: 1, pageSize: 2 }, {});
    const short = await client.listMeetings({ ...query, pageNumber: 2, pageSize: 5 }, {});

    expect(full.page?.pageCount).toBe(2);
    expect(short.page?.pageCount).toBe(2);
  });
});
