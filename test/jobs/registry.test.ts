import { describe, expect, it } from 'vitest';

import { createJobRegistry } from '../../src/jobs/registry.ts';
import type { JobHandler } from '../../src/jobs/types.ts';
import type { Job } from '../../src/store/types.ts';
import { captureLogs } from '../support/log-capture.ts';

const job = (kind: string) => ({ id: 1, kind, payload: {}, attempts: 0 }) as Job;
const context = { logger: captureLogs({ level: 'info' }).logger, signal: new AbortController().signal, now: Date.now };

describe('createJobRegistry', () => {
  it('when a kind is registered, then its handler is the one returned', async () => {
    const remap: JobHandler = async () => ({ kind: 'succeeded', result: 'remapped' });
    const registry = createJobRegistry({ remap });
    registry.register('import', async () => ({ kind: 'succeeded' }));

    expect(await registry.handlerFor('remap')(job('remap'), context)).toEqual({ kind: 'succeeded', result: 'remapped' });
    expect(registry.kinds()).toEqual(['remap', 'import']);
    expect(registry.has('import')).toBe(true);
  });

  it('when a kind is registered twice, then the second registration throws and the first stays', async () => {
    const registry = createJobRegistry({ remap: async () => ({ kind: 'succeeded', result: 'first' }) });

    expect(() => registry.register('remap', async () => ({ kind: 'succeeded', result: 'second' }))).toThrow('already registered');
    expect(await registry.handlerFor('remap')(job('remap'), context)).toEqual({ kind: 'succeeded', result: 'first' });
  });

  it('when a kind is unknown, then its handler ends the job dead naming the kind and the known ones', async () => {
    const registry = createJobRegistry({ remap: async () => ({ kind: 'succeeded' }) });

    expect(await registry.handlerFor('map-evnt')(job('map-evnt'), context)).toEqual({
      kind: 'final',
      state: 'dead',
      reason: 'no handler registered for job kind "map-evnt" (known: remap)',
      attempt: expect.objectContaining({ errorClass: 'unknown_kind' }),
    });
    expect(registry.has('map-evnt')).toBe(false);
  });
});
