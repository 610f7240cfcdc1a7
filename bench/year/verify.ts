import type { AdminClient } from './admin-client.ts';
import type { Sample } from './sample.ts';
import type { FillMeta } from './store-cache.ts';

/**
 * The fill read back through the bridge's own admin API before anything is measured: the sample
 * delivery's detail is the generated meeting (title, its one attempt, its event and match record),
 * a search by its title word finds it, its event's detail shows the message it came in, and the
 * stats count at least the jobs the fill wrote. A store the API cannot read this way would make
 * every figure after it meaningless, so a failed check stops the run.
 */

interface DeliveryDetail {
  delivery: { id: number; state: string; request: { meetingDetails?: { title?: string }; source?: { id?: string } } | null };
  attempts: unknown[];
  event: { id: number } | null;
  match: { outcome?: string } | null;
}

export async function verifyFill(client: AdminClient, sample: Sample, meta: FillMeta): Promise<string[]> {
  const problems: string[] = [];
  const expect = (ok: boolean, problem: string) => void (ok || problems.push(problem));

  const detail = await client.json<DeliveryDetail>(`/admin/deliveries/${sample.deliveryId}`);
  expect(
    detail.delivery.request?.meetingDetails?.title === sample.title,
    `delivery ${sample.deliveryId}: title ${detail.delivery.request?.meetingDetails?.title}, expected ${sample.title}`,
  );
  expect(
    detail.delivery.request?.source?.id === sample.sourceId,
    `delivery ${sample.deliveryId}: source id ${detail.delivery.request?.source?.id}, expected ${sample.sourceId}`,
  );
  expect(
    detail.delivery.state === 'succeeded' && detail.attempts.length === 1,
    `delivery ${sample.deliveryId}: ${detail.delivery.state} with ${detail.attempts.length} attempts`,
  );
  expect(detail.event?.id === sample.eventId, `delivery ${sample.deliveryId}: event ${detail.event?.id}, expected ${sample.eventId}`);
  expect(detail.match?.outcome === 'matched', `delivery ${sample.deliveryId}: match ${JSON.stringify(detail.match)?.slice(0, 100)}`);

  const found = await client.json<{ items: Array<{ id: number }> }>(`/admin/deliveries?q=${encodeURIComponent(sample.titleWord)}&limit=25`);
  expect(
    found.items.some((item) => item.id === sample.deliveryId),
    `a search for "${sample.titleWord}" does not list delivery ${sample.deliveryId} on its first page`,
  );

  const event = await client.json<{ message: { rawPayload: string } }>(`/admin/events/${sample.eventId}`);
  expect(event.message.rawPayload.includes(sample.sourceId), `event ${sample.eventId}: its message does not hold ${sample.sourceId}`);

  const stats = await client.json<{ counts: Array<{ count: number }> }>('/admin/stats');
  const jobs = stats.counts.reduce((sum, entry) => sum + entry.count, 0);
  expect(jobs >= meta.rows.jobs, `stats count ${jobs} jobs, the fill wrote ${meta.rows.jobs}`);
  if (problems.length > 0) throw new Error(`the filled store does not read back as filled:\n- ${problems.join('\n- ')}`);
  return [
    `delivery ${sample.deliveryId} reads back as "${sample.title}" with its attempt, event and match record`,
    `"${sample.titleWord}" finds it`,
    `stats count ${jobs.toLocaleString('en-US')} jobs (${meta.rows.jobs.toLocaleString('en-US')} filled)`,
  ];
}
