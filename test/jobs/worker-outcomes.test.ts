import { describe, expect, it } from 'vitest';

import type { JobHandler } from '../../src/jobs/types.ts';
import { waitFor } from '../support/wait-for.ts';
import { settled, useWorkerSetup } from './support/worker-setup.ts';

const { setup } = useWorkerSetup();

describe('createWorker', () => {
  it('when a job is enqueued to an idle worker, then it is sent at once without waiting for the idle timer', async () => {
    const { store, recorder, worker, finished, lines } = await setup();
    worker.start();
    await waitFor('the worker to go idle', async () => (await store.nextDueAt()) === undefined);

    const [job] = await store.enqueue([{ kind: 'post', payload: { meeting: 'm-1', secretNote: 'payload-only' } }]);

    await waitFor('the job to succeed', settled(store, job!.id, 'succeeded'), 5_000);
    expect(recorder.requests.map((request) => [request.jobId, request.body])).toEqual([[job!.id, { meeting: 'm-1', secretNote: 'payload-only' }]]);
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 1, leaseOwner: null });
    expect(finished).toEqual([expect.objectContaining({ jobId: job!.id, kind: 'post', state: 'succeeded', attempts: 1, recorded: true })]);
    const line = lines().find((entry) => entry.message === 'job finished');
    expect(line).toMatchObject({ level: 'info', jobId: job!.id, kind: 'post', state: 'succeeded', attempts: 1, status: 200, ms: expect.any(Number) });
    expect(JSON.stringify(lines())).not.toContain('payload-only');
  });

  it('when the upstream fails once with 500, then the job is retried on the schedule and succeeds', async () => {
    const { store, recorder, worker } = await setup({ responder: (_request, seen) => ({ status: seen === 0 ? 500 : 200 }) });
    const [job] = await store.enqueue([{ kind: 'post', payload: { n: 1 } }]);

    worker.start();

    await waitFor('the retry to succeed', settled(store, job!.id, 'succeeded'));
    expect(recorder.counts().get(job!.id)).toBe(2);
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 2 });
    expect((await store.getAttempts(job!.id)).map((attempt) => attempt.status)).toEqual([500, 200]);
  });

  it('when the upstream keeps failing, then the job is dead after the last schedule step', async () => {
    const { store, recorder, worker, finished, lines } = await setup({ responder: () => ({ status: 503 }) });
    const [job] = await store.enqueue([{ kind: 'post', payload: {} }]);

    worker.start();

    await waitFor('the job to die', settled(store, job!.id, 'dead'));
    const stored = await store.getJob(job!.id);
    expect(stored).toMatchObject({ attempts: 3 });
    expect(stored?.lastError).toContain('gave up after 3 attempts: HTTP 503');
    expect(recorder.counts().get(job!.id)).toBe(3);
    expect(finished.map((event) => event.state)).toEqual(['retry', 'retry', 'dead']);
    expect(
      lines()
        .filter((entry) => entry.message === 'job finished')
        .map((entry) => entry.level),
    ).toEqual(['info', 'info', 'warn']);
  });

  it('when a handler reports retryable failures without an attempt record, then attempts still count and the job dies on schedule', async () => {
    const bare: JobHandler = async () => ({ kind: 'retryable', error: 'upstream unreachable' });
    const { store, worker } = await setup({ handlers: { bare } });
    const [job] = await store.enqueue([{ kind: 'bare', payload: {} }]);

    worker.start();

    await waitFor('the job to die', settled(store, job!.id, 'dead'));
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 3, lastError: 'gave up after 3 attempts: upstream unreachable' });
    expect((await store.getAttempts(job!.id)).map((attempt) => attempt.errorClass)).toEqual(['error', 'error', 'error']);
  });

  it('when the upstream rejects with 400, then the job is dead at once and not retried', async () => {
    const { store, recorder, worker } = await setup({ responder: () => ({ status: 400 }) });
    const [job] = await store.enqueue([{ kind: 'post', payload: {} }]);

    worker.start();

    await waitFor('the job to die', settled(store, job!.id, 'dead'));
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 1, lastError: 'HTTP 400' });
    expect(recorder.counts().get(job!.id)).toBe(1);
  });

  it('when a handler defers twice for pacing, then the deferrals do not count as attempts', async () => {
    let calls = 0;
    const pacedThenOk: JobHandler = async (_job, context) => (++calls <= 2 ? { kind: 'deferred', runAt: context.now() + 20 } : { kind: 'succeeded' });
    const { store, worker, finished } = await setup({ handlers: { paced: pacedThenOk }, worker: { maxIdleMs: 100 } });
    const [job] = await store.enqueue([{ kind: 'paced', payload: {} }]);

    worker.start();

    await waitFor('the job to succeed', settled(store, job!.id, 'succeeded'));
    expect(calls).toBe(3);
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 1 });
    expect(finished.map((event) => [event.state, event.attempts])).toEqual([
      ['deferred', 0],
      ['deferred', 0],
      ['succeeded', 1],
    ]);
  });

  it('when a job kind has no handler, then the job is dead with a reason naming the kind and nothing is sent', async () => {
    const { store, recorder, worker } = await setup();
    const [job] = await store.enqueue([{ kind: 'calendar-sink', payload: {} }]);

    worker.start();

    await waitFor('the job to die', settled(store, job!.id, 'dead'));
    expect((await store.getJob(job!.id))?.lastError).toBe('no handler registered for job kind "calendar-sink" (known: post)');
    expect(recorder.requests).toEqual([]);
  });

  it('when a handler throws, then the job is retried with the error message and the throw is logged', async () => {
    let calls = 0;
    const flaky: JobHandler = async () => {
      if (++calls === 1) throw new Error('mapping rules not loaded');
      return { kind: 'succeeded' };
    };
    const { store, worker, lines } = await setup({ handlers: { flaky } });
    const [job] = await store.enqueue([{ kind: 'flaky', payload: {} }]);

    worker.start();

    await waitFor('the job to succeed', settled(store, job!.id, 'succeeded'));
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 2 });
    expect((await store.getAttempts(job!.id))[0]).toMatchObject({ errorClass: 'exception', responseExcerpt: 'mapping rules not loaded' });
    expect(lines()).toContainEqual(expect.objectContaining({ level: 'warn', message: 'job handler threw', error: 'mapping rules not loaded', jobId: job!.id }));
  });
});
