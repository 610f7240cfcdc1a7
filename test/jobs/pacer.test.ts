import { afterEach, describe, expect, it } from 'vitest';

import { createPacer } from '../../src/jobs/pacer.ts';
import type { Store } from '../../src/store/types.ts';
import { openRealStore } from '../support/real-store.ts';

/** A store that fails the test if pacing-off still reaches the database. */
const untouchable = new Proxy({} as Store, {
  get: (_target, name) => () => {
    throw new Error(`pacing off must not call store.${String(name)}`);
  },
});

const closes: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closes.splice(0)) await close();
});

describe('createPacer', () => {
  it('when pacing is off, then claims name the budget without a limit, a block changes nothing and the store is never asked', async () => {
    const pacer = createPacer(untouchable, [{ key: 'momentum', limit: undefined }]);

    await pacer.block('momentum', Date.now() + 60_000);

    expect(pacer.claimPacing(3)).toEqual({ budgets: [{ key: 'momentum' }], max: 3 });
    expect(await pacer.view('momentum')).toBeUndefined();
  });

  it('when a budget is paced and blocked after a 429, then its view shows no calls left until the block ends', async () => {
    const { store, close } = await openRealStore();
    closes.push(close);
    const pacer = createPacer(store, [{ key: 'momentum', limit: { requests: 5, windowMs: 2_000 } }]);
    const until = Date.now() + 30_000;

    const before = await pacer.view('momentum');
    await pacer.block('momentum', until);
    const after = await pacer.view('momentum');

    expect(pacer.claimPacing(4)).toEqual({ budgets: [{ key: 'momentum', limit: { requests: 5, windowMs: 2_000 } }], max: 4 });
    expect(before).toMatchObject({ key: 'momentum', capacity: 5, windowMs: 2_000, used: 0, remaining: 5, blockedUntil: null });
    expect(after).toMatchObject({ remaining: 0, blockedUntil: until, nextFreeAt: until });
  });
});
