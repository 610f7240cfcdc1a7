import { createMomentumClient } from '../../src/momentum/client.ts';
import { remapRequest } from './remap-jobs.ts';
import { timedRequests } from './stats.ts';

/**
 * The bridge's Momentum client on its own: the ceiling's requests sent through createMomentumClient
 * (total timeout, abort signal, headers, capped body read, response classification), nothing
 * stored. Between the ceiling and the drain, it tells the client's share of a job from the queue's.
 */
export async function momentumClientLoop(baseUrl: string, count: number, concurrency: number): Promise<{ ms: number; ok: number; cpuMicros: number }> {
  const client = createMomentumClient({ apiBaseUrl: baseUrl, receiverUrl: baseUrl, importPath: '/user-provided-meeting', apiKey: 'bench', timeoutMs: 30_000 });
  const flags = { triggerSummary: false, triggerAiSignals: false };
  try {
    return await timedRequests(count, concurrency, async (index) => {
      const result = await client.remap(remapRequest(index), flags, { idempotencyKey: String(index + 1) });
      return result.kind === 'success';
    });
  } finally {
    await client.close();
  }
}
