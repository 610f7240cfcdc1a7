import request from 'supertest';
import { afterEach, expect, it } from 'vitest';

import type { Store } from '../../src/store/types.ts';
import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';
import { googleEvent, mapped, receiveEvent, refused, salesforceEvent, skipped, zoomRecording } from './support/meeting-seed.ts';

const KEY = 'admin-key-0123456789abcdef';
let harness: EngineApp | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const GOOGLE_KEY = 'google:google:evt-skip-1';
const ZOOM_KEY = 'zoom:zoom:Zq4uuid/AbC12==';
const SALESFORCE_KEY = 'salesforce:Event:00U5w00000AbCdE';

/** Three meetings: one skipped at mapping, one delivered (its match record naming an opportunity), one refused at mapping. */
async function seedMeetings(store: Store) {
  const now = Date.now();
  const google = await receiveEvent(
    store,
    'google',
    GOOGLE_KEY,
    googleEvent('evt-skip-1', {
      iCalUId: 'uid-771@acme.test',
      title: 'Quarterly Pricing Review',
      organizerEmail: 'owner@ourco.test',
      attendees: [{ email: 'Buyer@Acme.test' }],
    }),
    now - 30_000,
  );
  await skipped(store, google, 'no external attendee');
  const zoom = await receiveEvent(
    store,
    'zoom',
    ZOOM_KEY,
    zoomRecording('Zq4uuid/AbC12==', { title: 'Onboarding call', host: { email: 'host@ourco.test' } }),
    now - 20_000,
  );
  const delivery = await mapped(
    store,
    zoom,
    { kind: 'import', payload: { request: { meeting: { id: 'Zq4uuid/AbC12==', title: 'Onboarding call' } } }, coalesceKey: 'import:Zq4uuid/AbC12==' },
    { opportunityId: '0065w000023STAmAAO' },
  );
  const salesforce = await receiveEvent(store, 'salesforce', SALESFORCE_KEY, salesforceEvent('00U5w00000AbCdEEAV', { Subject: 'Renewal sync' }), now - 10_000);
  await refused(store, salesforce, 'unmappable: the Event names no WhoId');
  return { google, zoom, salesforce, delivery };
}

describeEachEngine('GET /admin/meetings?q=', (engine) => {
  const start = async () => (harness = await startEngineApp(engine, { env: { ADMIN_API_KEYS: KEY } }));
  const get = (path: string) => request(harness!.app).get(path).set('Authorization', `Bearer ${KEY}`);
  const search = (q: string) => get(`/admin/meetings?q=${encodeURIComponent(q)}`);
  const keysFound = async (q: string) => {
    const answer = await search(q);
    expect(answer.status, `q=${q}`).toBe(200);
    return answer.body.items.map((item: { meetingKey: string }) => item.meetingKey);
  };

  it.each([
    ['a title word, in another case', 'pricing', GOOGLE_KEY],
    ["an attendee's email", 'buyer@acme.test', GOOGLE_KEY],
    ['the iCalUID', 'uid-771@acme.test', GOOGLE_KEY],
    ["the calendar's event id (source id)", 'evt-skip-1', GOOGLE_KEY],
    ['the Zoom uuid', 'Zq4uuid/AbC12==', ZOOM_KEY],
    ["the host's email", 'host@ourco.test', ZOOM_KEY],
    ['the 15-character form of the Salesforce id its match record named', '0065w000023STAm', ZOOM_KEY],
    ['the Salesforce Event id of an event refused at mapping', '00U5w00000AbCdEEAV', SALESFORCE_KEY],
    ["that refused Event's subject", 'renewal sync', SALESFORCE_KEY],
  ])('when the text is %s, then exactly that meeting is found', async (_, q, key) => {
    const { store } = await start();
    await seedMeetings(store);

    expect(await keysFound(q)).toEqual([key]);
  });

  it('when a skipped meeting is found, then it answers its title, start, source, counts and last activity, and the event document is stored', async () => {
    const { store, url } = await start();
    const { google } = await seedMeetings(store);

    const answer = await search('Quarterly');

    expect(answer.body).toEqual({
      items: [
        {
          meetingKey: GOOGLE_KEY,
          meetingId: null,
          title: 'Quarterly Pricing Review',
          start: '2026-03-02T15:00:00Z',
          sources: [{ meetingKey: GOOGLE_KEY, source: 'google' }],
          lastActivityAt: expect.any(String),
          counts: { events: 1, deliveries: 0, matches: 1 },
          foundIn: ['event'],
        },
      ],
      more: false,
    });
    expect(Date.parse(answer.body.items[0].lastActivityAt)).toBeGreaterThanOrEqual(google.event.receivedAt);
    const [document] = await queryRows(url, 'SELECT text FROM event_search WHERE event_id = $1', [google.event.id]);
    expect(String(document!.text).split('\n')).toEqual(
      expect.arrayContaining(['quarterly pricing review', 'evt-skip-1', 'uid-771@acme.test', 'owner@ourco.test', 'buyer@acme.test']),
    );
  });

  it('when the text is in both an event and a delivery of one meeting, then the meeting is answered once, found in both, with its delivery counted', async () => {
    const { store } = await start();
    await seedMeetings(store);

    const answer = await search('onboarding');

    expect(answer.body.items).toHaveLength(1);
    expect(answer.body.items[0]).toMatchObject({
      meetingKey: ZOOM_KEY,
      title: 'Onboarding call',
      counts: { events: 1, deliveries: 1, matches: 1 },
      foundIn: ['event', 'delivery'],
    });
  });

  it('when the text is nowhere, then no meeting is found; when q is missing or too long, then 400 names it', async () => {
    const { store } = await start();
    await seedMeetings(store);

    expect((await search('no-such-meeting-anywhere')).body).toEqual({ items: [], more: false });
    const missing = await get('/admin/meetings');
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.map((issue: { path: string }) => issue.path)).toEqual(['q']);
    expect((await search('x'.repeat(201))).status).toBe(400);
    expect((await get('/admin/meetings?q=pricing&limit=51')).status).toBe(400);
  });

  it('when more meetings hold the text than the limit, then the newest are answered and more is true', async () => {
    const { store } = await start();
    for (const n of [1, 2, 3]) {
      const seeded = await receiveEvent(
        store,
        'google',
        `google:google:standup-${n}`,
        googleEvent(`standup-${n}`, { title: `Daily standup ${n}` }),
        Date.now() - 1000 * (10 - n),
      );
      await skipped(store, seeded, 'no external attendee');
    }

    const answer = await get('/admin/meetings?q=standup&limit=2');

    expect(answer.body.more).toBe(true);
    expect(answer.body.items.map((item: { meetingKey: string }) => item.meetingKey)).toEqual(['google:google:standup-3', 'google:google:standup-2']);
  });
});

describeEachEngine('GET /admin/events?q= and each event row’s title', (engine) => {
  const start = async () => (harness = await startEngineApp(engine, { env: { ADMIN_API_KEYS: KEY } }));
  const get = (path: string) => request(harness!.app).get(path).set('Authorization', `Bearer ${KEY}`);

  it('when events are listed, then each row carries its title (a calendar title, a Salesforce Subject)', async () => {
    const { store } = await start();
    const { google, zoom, salesforce } = await seedMeetings(store);

    const answer = await get('/admin/events');

    expect(answer.status).toBe(200);
    expect(answer.body.items.map((item: { id: number; title: string | null }) => [item.id, item.title])).toEqual([
      [salesforce.event.id, 'Renewal sync'],
      [zoom.event.id, 'Onboarding call'],
      [google.event.id, 'Quarterly Pricing Review'],
    ]);
  });

  it('when q names an identifier, then only the events holding it are listed, skipped and refused ones with their reason', async () => {
    const { store } = await start();
    const { google, salesforce } = await seedMeetings(store);

    const byEmail = await get('/admin/events?q=BUYER%40acme.test');
    const byId = await get('/admin/events?q=00U5w00000AbCdE');

    expect(byEmail.body.items).toEqual([expect.objectContaining({ id: google.event.id, state: 'skipped', stateReason: 'no external attendee' })]);
    expect(byId.body.items).toEqual([
      expect.objectContaining({ id: salesforce.event.id, state: 'failed', stateReason: 'unmappable: the Event names no WhoId', title: 'Renewal sync' }),
    ]);
  });

  it('when q matches more events than a page, then the pages follow each other without repeats', async () => {
    const { store } = await start();
    const made = [];
    for (const n of [1, 2, 3])
      made.push(
        await receiveEvent(store, 'google', `google:google:retro-${n}`, googleEvent(`retro-${n}`, { title: 'Sprint retro' }), Date.now() - 1000 * (10 - n)),
      );

    const first = await get('/admin/events?q=retro&limit=2');
    const second = await get(`/admin/events?q=retro&limit=2&cursor=${first.body.nextCursor}`);

    expect(first.body.items.map((item: { id: number }) => item.id)).toEqual([made[2]!.event.id, made[1]!.event.id]);
    expect(second.body.items.map((item: { id: number }) => item.id)).toEqual([made[0]!.event.id]);
    expect(second.body.nextCursor).toBeNull();
  });
});
