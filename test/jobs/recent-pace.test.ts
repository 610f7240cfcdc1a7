import { describe, expect, it } from 'vitest';

import { createRecentPace } from '../../src/jobs/recent-pace.ts';

describe('createRecentPace', () => {
  it('when jobs finish, then it counts those within the window, never more than the cap', () => {
    let clock = 1_000;
    const pace = createRecentPace(3, 50, () => clock);

    const beforeAny = pace.count();
    pace.note();
    clock += 20;
    pace.note();
    const two = pace.count();
    pace.note();
    pace.note();
    const capped = pace.count();
    clock += 60;
    const afterWindow = pace.count();

    expect([beforeAny, two, capped, afterWindow]).toEqual([0, 2, 3, 0]);
  });

  it('when the cap is 0 (WORKER_PREFETCH=0), then it always counts 0', () => {
    const pace = createRecentPace(0, 50, () => 0);
    pace.note();
    expect(pace.count()).toBe(0);
  });
});
