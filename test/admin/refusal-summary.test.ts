import { describe, expect, it } from 'vitest';

import { refusalSummary } from '../../src/admin/refusals.ts';
import type { RefusalStore } from '../../src/store/types.ts';

/*
 * GET /admin/refusals over a window of whole minutes (counts are kept per minute), so the answer
 * and its ETag stay the same between two polls of the console unless a count changed.
 */

const nothingStored = { totals: async () => ({ counts: [], examples: [] }) } as unknown as RefusalStore;

describe('the refused-traffic summary', () => {
  it('when it is asked twice within one minute with nothing refused meanwhile, then both answers are the same, from the start of a minute', async () => {
    const at = Date.parse('2026-11-27T10:15:42.123Z');

    const first = await refusalSummary({ refusals: nothingStored }, { hours: 24 }, undefined, at);
    const second = await refusalSummary({ refusals: nothingStored }, { hours: 24 }, undefined, at + 5_000);

    expect(first).toEqual(second);
    expect(first.since).toBe('2026-11-26T10:15:00.000Z');
  });
});
