import { expect, it } from 'vitest';

import { MAX_SYNC_MS } from '../../src/microsoft/delta-walk.ts';
import { createGraphAuth } from '../../src/microsoft/graph-auth.ts';
import { createGraphClient } from '../../src/microsoft/graph-client.ts';
import { mailboxSyncKind } from '../../src/microsoft/jobs.ts';
import { createMailboxSyncHandler } from '../../src/microsoft/sync-handler.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore } from '../support/real-store.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { ANA, CLIENT_ID, CLIENT_SECRET, fakeMicrosoft, TENANT } from './support/ms-bridge.ts';

/*
 * The bounds of one delta sync that a test cannot reach through a running bridge in real time:
 * the sync handler on a real store of each engine, calling the fake Graph over HTTP through the
 * real client, with a clock the test moves.
 */

const cleanups = cleanupAfterEach();

async function scene(engine: Parameters<typeof openRealStore>[0]) {
  const microsoft = await fakeMicrosoft();
  cleanups.push(microsoft.close);
  const real = await openRealStore(engine, 'sync_bounds');
  cleanups.push(real.close);
  const logger = captureLogs().logger;
  const auth = createGraphAuth({
    loginUrl: microsoft.loginUrl,
    tenantId: TENANT,
    clientId: CLIENT_ID,
    credential: { kind: 'secret', secret: CLIENT_SECRET },
    scope: 'https://graph.microsoft.com/.default',
    logger,
  });
  const client = createGraphClient({ baseUrl: microsoft.graphUrl, accessToken: () => auth.accessToken() });
  cleanups.push(
    () => client.close(),
    () => auth.close(),
  );
  await real.store.subscriptions.watchMailbox(ANA, 'admin', Date.now());
  const handler = createMailboxSyncHandler({
    subscriptions: real.store.subscriptions,
    client,
    store: real.store,
    internalDomains: ['example.com'],
    fullSyncDaysBack: 30,
    fullSyncDaysAhead: 90,
  });
  const [job] = await real.store.enqueue([mailboxSyncKind.job({ userId: ANA, trigger: 'admin' })]);
  let skew = 0;
  const run = () => handler(job!, { logger, signal: new AbortController().signal, now: () => Date.now() + skew });
  return { microsoft, real, run, skip: (ms: number) => (skew += ms) };
}

describeEachEngine('the bounds of one Microsoft 365 delta sync', (engine) => {
  it('when the pages of one sync take longer than the time bound, then it stops before the next page, to be retried, with the reason on the mailbox', async () => {
    const { microsoft, real, run, skip } = await scene(engine);
    let pages = 0;
    microsoft.scriptDelta(ANA, (_query, deltaUrl) => {
      pages += 1;
      // Graph is slow: by the second page the sync has run for its whole bound.
      if (pages === 2) skip(MAX_SYNC_MS);
      return { value: [], '@odata.nextLink': `${deltaUrl}?$skiptoken=slow-${pages}` };
    });

    const result = await run();

    expect(result).toMatchObject({
      kind: 'retryable',
      error: expect.stringMatching(/no deltaLink after \d+ s and 2 pages, past the bound of one sync \(600 s\)/),
    });
    expect(microsoft.requestsOf('delta')).toHaveLength(2);
    expect(await real.store.subscriptions.getMailbox(ANA)).toMatchObject({ deltaLink: null, lastError: expect.stringContaining('past the bound of one sync') });
  });

  it('when a full sync is handed a link to another host, then it is not followed: the job ends dead naming the host, and the mailbox shows it', async () => {
    const { microsoft, real, run } = await scene(engine);
    microsoft.scriptDelta(ANA, () => ({ value: [], '@odata.deltaLink': 'https://graph.elsewhere.example/v1.0/users/x/calendarView/delta?$deltatoken=1' }));

    const result = await run();

    expect(result).toMatchObject({
      kind: 'final',
      state: 'dead',
      reason: expect.stringContaining('https://graph.elsewhere.example, which is not MICROSOFT_GRAPH_API_URL'),
    });
    expect(await real.store.subscriptions.getMailbox(ANA)).toMatchObject({ deltaLink: null, lastError: expect.stringContaining('graph.elsewhere.example') });
  });
});
