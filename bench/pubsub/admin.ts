import { request } from 'undici';

import { ADMIN_KEY } from './world.ts';

/** The stored replay id (hex) of each topic, as GET /admin/pubsub reports it. */
export async function storedReplayIds(bridgeUrl: string): Promise<Map<string, string>> {
  const response = await request(`${bridgeUrl}/admin/pubsub`, { headers: { authorization: `Bearer ${ADMIN_KEY}` }, headersTimeout: 30_000 });
  const body = (await response.body.json()) as { subscriptions?: Array<{ topic: string; replayId: string | null }> };
  if (response.statusCode !== 200) throw new Error(`GET /admin/pubsub answered ${response.statusCode}`);
  return new Map((body.subscriptions ?? []).map((entry) => [entry.topic, entry.replayId ?? '']));
}
