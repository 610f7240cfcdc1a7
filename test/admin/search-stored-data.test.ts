import request from 'supertest';
import { afterEach, expect, it } from 'vitest';

import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { describeEachEngine, executeSql, queryRows } from '../support/stored-state.ts';

/*
 * The admin search reads stored payloads as JSON. An upstream value holding U+0000 (a Zoom guest's
 * name, a Graph subject) is stored without it; rows written before that rule may still hold the
 * escapes PostgreSQL's jsonb refuses. Neither may ever turn a search into a 500.
 */

const KEY = 'admin-key-0123456789abcdef';
let harness: EngineApp | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const remap = (title: string) => ({
  kind: 'remap',
  payload: {
    request: { source: { id: `src-${title.length}`, type: 'ZOOM' }, meetingDetails: { title }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } },
  },
});

describeEachEngine('GET /admin/deliveries?q= over stored data', (engine) => {
  const start = async () => (harness = await startEngineApp(engine, { env: { ADMIN_API_KEYS: KEY } }));
  const search = (q: string) =>
    request(harness!.app)
      .get(`/admin/deliveries?q=${encodeURIComponent(q)}`)
      .set('Authorization', `Bearer ${KEY}`);

  it('when a payload is stored with a value holding U+0000, then the value is kept without it and the search finds it', async () => {
    const { store, url } = await start();

    const [job] = await store.enqueue([remap('Demo\u0000 with guest\u0000')]);

    const [row] = await queryRows(url, 'SELECT payload FROM jobs WHERE id = $1', [job!.id]);
    expect(String(row!.payload)).not.toContain('\\u0000');
    expect(JSON.parse(String(row!.payload)).request.meetingDetails.title).toBe('Demo with guest');
    const answer = await search('with guest');
    expect(answer.status).toBe(200);
    expect(answer.body.items.map((item: { id: number }) => item.id)).toEqual([job!.id]);
  });

  it('when rows written by an older release hold \\u0000 or an unpaired surrogate escape, then every search still answers 200 and finds them', async () => {
    const { store, url } = await start();
    const [nul, surrogate, clean] = await store.enqueue([remap('placeholder one'), remap('placeholder two!'), remap('Pricing review')]);
    const legacy = (title: string) => JSON.stringify({ request: { source: { id: 'legacy', type: 'ZOOM' }, meetingDetails: { title } } });
    // Written as an older release wrote them: the escapes are in the stored text itself.
    await executeSql(url, 'UPDATE jobs SET payload = $1 WHERE id = $2', [legacy('Pricing\u0000 call').replace('\u0000', '\\u0000'), nul!.id]);
    await executeSql(url, 'UPDATE jobs SET payload = $1 WHERE id = $2', [legacy('Pricing \uD800 sync'), surrogate!.id]);

    for (const q of ['pricing', 'matches nothing', '0065w000023STAm']) expect((await search(q)).status, `q=${q}`).toBe(200);
    const found = (await search('pricing')).body.items.map((item: { id: number }) => item.id);
    expect(found).toContain(clean!.id);
    expect(found).toContain(nul!.id);
    expect(found).toContain(surrogate!.id);
  });
});
