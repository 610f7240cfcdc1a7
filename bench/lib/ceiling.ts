import { Agent } from 'undici';
import { remapRequest } from './remap-jobs.ts';
import { timedRequests } from './stats.ts';

/**
 * The ceiling of the engine benchmark: a plain undici loop sending the same remap requests to the
 * same fake with the same concurrency, with nothing stored, paced or retried. Resolves with the
 * elapsed ms.
 */
export async function undiciCeiling(baseUrl: string, count: number, concurrency: number): Promise<{ ms: number; ok: number; cpuMicros: number }> {
  const agent = new Agent({ connect: { timeout: 5_000 } });
  const url = new URL('/v1/meeting/remap', baseUrl);
  try {
    return await timedRequests(count, concurrency, async (index) => {
      const response = await agent.request({
        origin: url.origin,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'bench', 'idempotency-key': String(index + 1), accept: 'application/json' },
        body: JSON.stringify(remapRequest(index)),
      });
      const body = (await response.body.json()) as { accepted?: boolean };
      return response.statusCode === 200 && body.accepted === true;
    });
  } finally {
    await agent.close();
  }
}
