import { describe, expect, it } from 'vitest';

import { afterListing } from '../../src/momentum/after-listing.ts';

/*
 * The work after a meetings-list call Momentum answered: a failure there retries the job, and the
 * call keeps its slot in the budget (docs/delivery.md, pacing).
 */

describe('work after a meetings-list call', () => {
  it('when storing the listed page fails, then the job is retried and the call counts as made', async () => {
    const result = await afterListing(async () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    });

    expect(result).toEqual({ kind: 'retryable', error: 'the listed page could not be stored: SQLITE_FULL: database or disk is full', calledUpstream: true });
  });

  it('when it succeeds, then its own result is the job result', async () => {
    const done = { kind: 'succeeded' as const, result: { listed: 3 }, calledUpstream: true };

    expect(await afterListing(async () => done)).toBe(done);
  });
});
