import { Agent } from 'undici';
import { remapRequest } from './remap-jobs.ts';
import { cpuMicrosSince, runPool } from './stats.ts';

/**
 * The ceiling of the engine benchmark: a plain undici loop sending the same remap requests to the
 * same fake with the same concurrency, with nothing stored, paced or retried. Resolves with the
 * elapsed ms.
 */
export async function undiciCeiling(baseUrl: string, count: number, concurrency: number): Promise<{ ms: number; ok: number; cpuMicros: number }> {
  const agent = new Agent({ connect: { timeout: 5_000 } });
  const url = new URL('/v1/meeting/remap', baseUrl);
  let next = 0;
  let ok = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  try {
    await runPool(
      concurrency,
      () => (next < count ? next++ : undefined),
      async (index) => {
        const response = await agent.request({
          origin: url.origin,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'bench', 'idempotency-key': String(index + 1), accept: 'application/json' },
          body: JSON.stringify(remapRequest(index)),
        });
        const body = (await response.body.json()) as { accepted?: boolean };
        if (response.statusCode === 200 && body.accepted === true) ok += 1;
      },
    );
    return { ms: performance.now() - started, ok, cpuMicros: cpuMicrosSince(cpuBefore) };
  } finally {
    await agent.close();
  }
}
