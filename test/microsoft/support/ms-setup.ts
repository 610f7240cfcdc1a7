import { request } from 'undici';
import { expect } from 'vitest';

import type { FakeMicrosoft, FakeSubscription } from '../../fakes/fake-microsoft.ts';
import { type FakeMomentum, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import type { Cleanup } from '../../support/cleanups.ts';
import type { Engine } from '../../support/real-store.ts';
import { expectSettled, type JobSummary, type Row, type SettledExpectations, waitSettled } from '../../support/stored-state.ts';
import { waitFor } from '../../support/wait-for.ts';
import { ANA, fakeMicrosoft, type MicrosoftBridge, startMicrosoftBridge } from './ms-bridge.ts';

/*
 * One Microsoft 365 scene through the real startBridge on either engine: the fake Graph and its
 * login host, a fake Momentum, a bridge watching ANA's mailbox that has subscribed and run its
 * start-up syncs; and what the tests read back of the bridge's stored state.
 */

export interface MicrosoftScene {
  microsoft: FakeMicrosoft;
  momentum: FakeMomentum;
  running: MicrosoftBridge;
  subscription: FakeSubscription;
}

export interface SceneOptions {
  env?: Record<string, string>;
  clientCertificatePem?: string;
}

/** `setup()` for a suite on `engine`; everything it opens is closed by `cleanups`. */
export function microsoftScene(engine: Engine, cleanups: Cleanup[]): (options?: SceneOptions) => Promise<MicrosoftScene> {
  return async (options = {}) => {
    const microsoft = await fakeMicrosoft(options.clientCertificatePem ? { clientCertificatePem: options.clientCertificatePem } : {});
    const momentum = await startFakeMomentum();
    cleanups.push(microsoft.close, momentum.close);
    const running = await startMicrosoftBridge(microsoft, momentum.url, { engine, ...(options.env ? { env: options.env } : {}) });
    cleanups.push(running.close);
    await waitFor('a subscription at Graph', () => [...microsoft.subscriptions.values()].some((subscription) => !subscription.deleted));
    const subscription = [...microsoft.subscriptions.values()].find((item) => !item.deleted)!;
    // The start's syncs (after subscribing, and the first backstop) have ended and stored a delta link: what follows is the test's own.
    await waitFor('the first sync to end', async () => {
      const row = await mailboxRow(running);
      return row.last_sync_at !== null || row.last_error !== null;
    });
    await waitSettled(running.bridge.databaseUrl);
    await expectSynced(running);
    return { microsoft, momentum, running, subscription };
  };
}

export interface MailboxRow {
  delta_link: string | null;
  window_started_at: number | null;
  last_sync_at: number | null;
  last_error: string | null;
}

export async function mailboxRow(running: MicrosoftBridge, userId = ANA): Promise<MailboxRow> {
  const [row] = await running.rows(`SELECT delta_link, window_started_at, last_sync_at, last_error FROM microsoft_mailboxes WHERE user_id = $1`, [userId]);
  if (row === undefined) throw new Error(`no mailbox row for ${userId}`);
  return row as unknown as MailboxRow;
}

/** The mailbox's last sync completed: a delta link at the fake Graph stored with its window, the sync time set, no error. */
export async function expectSynced(running: MicrosoftBridge, userId = ANA): Promise<MailboxRow> {
  const row = await mailboxRow(running, userId);
  expect(row, `the stored state of ${userId}`).toEqual({
    delta_link: expect.stringMatching(/\/calendarView\/delta\?\$deltatoken=/),
    window_started_at: expect.any(Number),
    last_sync_at: expect.any(Number),
    last_error: null,
  });
  return row;
}

/** Waits for the queue to settle, then asserts nothing pending, dead or retried beyond what the test allows. */
export async function settled(running: MicrosoftBridge, expectations: SettledExpectations = {}): Promise<JobSummary[]> {
  await waitSettled(running.bridge.databaseUrl);
  return expectSettled(running.bridge.databaseUrl, expectations);
}

export const jobsOf = (running: MicrosoftBridge, kind: string): Promise<Row[]> =>
  running.rows(`SELECT id, state, attempts, result, last_error FROM jobs WHERE kind = $1 ORDER BY id`, [kind]);

/** Raw pages the syncs stored (one inbound message per delta page that held a meeting). */
export const storedPages = async (running: MicrosoftBridge): Promise<Array<{ userId: string; value: unknown[] }>> =>
  (await running.rows(`SELECT raw_payload FROM inbound_messages WHERE source = 'microsoft' ORDER BY id`)).map(
    (row) => JSON.parse(String(row.raw_payload)) as { userId: string; value: unknown[] },
  );

export const post = (url: string, body: string, contentType = 'application/json') =>
  request(url, { method: 'POST', body, headers: { 'content-type': contentType } }).then(async (response) => ({
    status: response.statusCode,
    headers: response.headers,
    body: await response.body.text(),
  }));

export const metricsText = (running: MicrosoftBridge): Promise<string> => request(`${running.bridge.url}/metrics`).then((response) => response.body.text());

export const ADMIN_KEY = 'admin-key-for-tests-0001';

/** GET /admin/calendars, the Microsoft mailboxes as an operator sees them. */
export async function adminCalendars(running: MicrosoftBridge): Promise<Array<Record<string, unknown>>> {
  const answer = await request(`${running.bridge.url}/admin/calendars`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(answer.statusCode).toBe(200);
  return ((await answer.body.json()) as { calendars: Array<Record<string, unknown>> }).calendars;
}
