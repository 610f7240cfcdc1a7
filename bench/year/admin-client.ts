import { Agent } from 'undici';

/**
 * The operator's side of the measurement: admin API (and /metrics) GETs with the key, each timed
 * from send to the whole body read, as a browser's fetch would wait for it.
 */

export const ADMIN_KEY = 'bench-year-admin-key-0123456789abcdef';
const READ_TIMEOUT_MS = 60_000;

export interface Answer {
  status: number;
  ms: number;
  body: unknown;
}

export type AdminClient = ReturnType<typeof createAdminClient>;

export function createAdminClient(bridgeUrl: string, connections = 16) {
  const agent = new Agent({ connections });
  /** `signal` cuts the request short: its answer has status 0. */
  async function get(path: string, signal?: AbortSignal): Promise<Answer> {
    const started = performance.now();
    try {
      const response = await agent.request({
        origin: bridgeUrl,
        path,
        method: 'GET',
        ...(signal === undefined ? {} : { signal }),
        headers: { authorization: `Bearer ${ADMIN_KEY}`, accept: 'application/json' },
        headersTimeout: READ_TIMEOUT_MS,
        bodyTimeout: READ_TIMEOUT_MS,
      });
      const text = await response.body.text();
      const ms = performance.now() - started;
      let body: unknown = text;
      if ((response.headers['content-type'] ?? '').toString().includes('json')) body = JSON.parse(text);
      return { status: response.statusCode, ms, body };
    } catch (error) {
      return { status: 0, ms: performance.now() - started, body: String(error) };
    }
  }
  /** GET that must answer 200; its JSON body. */
  async function json<T>(path: string): Promise<T> {
    const answer = await get(path);
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    return answer.body as T;
  }
  return { get, json, close: () => agent.close() };
}

interface Page {
  items: Array<{ id: number }>;
  nextCursor: string | null;
}

/**
 * What the console asks for when it opens (console/assets/main.js): the key check (stats), then at
 * once the stats, the activity chart (its default range), and the deliveries table, which first
 * reads the newest Salesforce event to learn the org's URL. Answers the time to the last answer
 * and how many calls did not answer 200.
 */
export async function openConsole(client: AdminClient, onFailure: (status: number) => void = () => {}): Promise<{ ms: number; failed: number }> {
  const started = performance.now();
  let failed = 0;
  const count = (answer: Answer) => {
    if (answer.status !== 200) {
      failed += 1;
      onFailure(answer.status);
    }
    return answer;
  };
  count(await client.get('/admin/stats'));
  await Promise.all([
    client.get('/admin/stats').then(count),
    client.get('/admin/activity').then(count),
    (async () => {
      const latest = count(await client.get('/admin/events?source=salesforce&limit=1')).body as Page | undefined;
      const id = latest?.items?.[0]?.id;
      if (id !== undefined) count(await client.get(`/admin/events/${id}`));
      count(await client.get('/admin/deliveries?limit=25'));
    })(),
  ]);
  return { ms: performance.now() - started, failed };
}

/** The cursor of page `page` of the deliveries listing (25 a page, as the console pages). */
export async function cursorOfPage(client: AdminClient, page: number): Promise<string> {
  let cursor: string | null = null;
  for (let at = 1; at < page; at++) {
    const answer: Page = await client.json<Page>(`/admin/deliveries?limit=25${cursor === null ? '' : `&cursor=${cursor}`}`);
    if (answer.nextCursor === null) throw new Error(`the deliveries listing ends before page ${page}`);
    cursor = answer.nextCursor;
  }
  if (cursor === null) throw new Error('page 1 has no cursor');
  return cursor;
}
