import { setTimeout as sleep } from 'node:timers/promises';

import { type Distribution, distribution } from '../lib/stats.ts';
import { type AdminClient, openConsole } from './admin-client.ts';

/**
 * Operators at work while the bridge acknowledges traffic: SEARCHERS lanes each running the
 * listing searches one after another without pause, and a console that opens once and then polls
 * as console/assets/main.js does (stats every 10 s, the activity chart every sixth time).
 */

export const SEARCHERS = 10;
const STATS_EVERY_MS = 10_000;
const ACTIVITY_EVERY = 6;

export interface LoadOutcome {
  /** Searches that answered while the load ran. */
  searches: Distribution;
  /** Searches still waiting for their answer when the load stopped (cut short). */
  searchesUnfinished: number;
  searchFailures: number;
  consoleCalls: number;
  consoleFailures: number;
  /** Status of every answer other than 200 (0: no answer), with how many. */
  failureStatuses: Record<string, number>;
}

export function startOperatorLoad(client: AdminClient, searches: readonly string[]): { stop(): Promise<LoadOutcome> } {
  let running = true;
  const stopping = new AbortController();
  let unfinished = 0;
  const times: number[] = [];
  let searchFailures = 0;
  let consoleCalls = 0;
  let consoleFailures = 0;
  const failureStatuses: Record<string, number> = {};
  const failure = (status: number) => void (failureStatuses[status] = (failureStatuses[status] ?? 0) + 1);

  const searcher = async (lane: number) => {
    for (let k = lane; running; k++) {
      const answer = await client.get(searches[k % searches.length] as string, stopping.signal);
      if (!running) unfinished += 1;
      else {
        times.push(answer.ms);
        if (answer.status !== 200) {
          searchFailures += 1;
          failure(answer.status);
        }
      }
    }
  };
  const consolePolling = async () => {
    const opened = await openConsole(client, failure);
    consoleCalls += 6;
    consoleFailures += opened.failed;
    for (let tick = 1; running; tick++) {
      const until = performance.now() + STATS_EVERY_MS;
      while (running && performance.now() < until) await sleep(100);
      if (!running) break;
      const polls = [client.get('/admin/stats'), ...(tick % ACTIVITY_EVERY === 0 ? [client.get('/admin/activity')] : [])];
      for (const answer of await Promise.all(polls)) {
        consoleCalls += 1;
        if (answer.status !== 200) {
          consoleFailures += 1;
          failure(answer.status);
        }
      }
    }
  };
  const lanes = [...Array.from({ length: SEARCHERS }, (_, lane) => searcher(lane)), consolePolling()];

  return {
    async stop() {
      running = false;
      stopping.abort();
      await Promise.all(lanes);
      return { searches: distribution(times), searchesUnfinished: unfinished, searchFailures, consoleCalls, consoleFailures, failureStatuses };
    },
  };
}
