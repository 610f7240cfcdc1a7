import { request } from 'undici';

import { startFakeSalesforceOrg } from '../../test/fakes/fake-salesforce-org/index.ts';
import { type BenchBridge, type RunRules, SALESFORCE_CLIENT, startBenchBridge } from './bench-bridge.ts';
import { answersOf, storedState } from './bridge-run.ts';
import { type CatchUpScore, scoreCatchUp } from './catch-up-score.ts';
import { DEFERRED_OBJECTS, type DeferredObject } from './catch-up-set.ts';
import { catchUp, ORG_ID, tellByOutboundMessages, waitForSweepAfter } from './catch-up-tell.ts';
import type { MatchingSet } from './generate.ts';
import { ORG_NOW } from './org-builder.ts';
import { judge } from './score.ts';

/**
 * One catch-up run (docs/performance.md, matching: catch-up), on a fresh copy of the org and a
 * fresh bridge under the default policy: every meeting and every catch-up meeting posted at once
 * and settled (the first pass); the pins put through the admin API and settled; then the CRM
 * catches up (catch-up-tell.ts), every record at once or staged (the contact roles saved once the
 * re-checks of their opportunities settled), and the bridge is told by Outbound Messages or by
 * nothing (the sweep, every SWEEP_INTERVAL); each stage ends when the queue has settled (after
 * the first sweep scheduled after it, for the sweep).
 */

/** How the bridge hears of the change: Outbound Messages or the sweep, every record saved at once or staged (contact roles after). */
export type Telling = 'outbound-message' | 'staged' | 'sweep' | 'staged-sweep';
const BY_SWEEP = new Set<Telling>(['sweep', 'staged-sweep']);
export const SWEEP_INTERVAL = '2s';
const ADMIN_KEY = 'bench-admin-key-0123456789';
const DEADLINE_MS = 180_000;

export interface CatchUpRun {
  telling: Telling;
  catchUpMeetings: number;
  /** Catch-up meetings whose first answer was their Account alone. */
  firstAccountAlone: number;
  /** Posts, pins and Outbound Messages not answered as they should be (202, 202, 200). */
  refused: number;
  pinned: number;
  final: number;
  score: CatchUpScore;
  /** `rematch` jobs after the change: sent a new answer, found it unchanged, skipped as pinned, coalesced into a later one, anything else. */
  rechecks: { changed: number; unchanged: number; pinned: number; coalesced: number; other: number };
  /** Final meetings re-checked (their Account gained an opportunity), none of which may move. */
  finalRechecked: number;
  /** Sweeps that found the change (enqueued re-checks). */
  sweepsFinding: number;
  /** SOQL queries from the change on. */
  queries: number;
  dead: number;
  matches: Map<string, { rule: string; summary: string }>;
}

const idOf = (meetingKey: string) => meetingKey.slice(meetingKey.lastIndexOf(':') + 1);

async function pin(bridge: BenchBridge, id: string, body: object): Promise<number> {
  const row = bridge.db.prepare('SELECT meeting_key FROM match_records WHERE meeting_key LIKE ? LIMIT 1').get(`%:${id}`) as { meeting_key: string } | undefined;
  if (row === undefined) throw new Error(`no match record for ${id} to pin`);
  const response = await request(`${bridge.url}/admin/meetings/${encodeURIComponent(row.meeting_key)}/pin`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.body.text();
  return response.statusCode;
}

function rechecksOf(bridge: BenchBridge, final: ReadonlySet<string>): Pick<CatchUpRun, 'rechecks' | 'finalRechecked' | 'sweepsFinding'> {
  const rechecks = { changed: 0, unchanged: 0, pinned: 0, coalesced: 0, other: 0 };
  const finalRechecked = new Set<string>();
  const rows = bridge.db.prepare(`SELECT kind, state, payload, result, last_error FROM jobs WHERE kind IN ('rematch', 'crm-sweep') ORDER BY id`).all() as Array<
    Record<'kind' | 'state' | 'payload', string> & Record<'result' | 'last_error', string | null>
  >;
  let sweepsFinding = 0;
  for (const row of rows) {
    const result = row.result === null ? undefined : (JSON.parse(row.result) as { changed?: boolean; rematches?: number });
    if (row.kind === 'crm-sweep') {
      if ((result?.rematches ?? 0) > 0) sweepsFinding += 1;
      continue;
    }
    const id = idOf((JSON.parse(row.payload) as { meetingKey: string }).meetingKey);
    if (final.has(id)) finalRechecked.add(id);
    if (row.state === 'succeeded' && result?.changed === true) rechecks.changed += 1;
    else if (row.state === 'succeeded' && result?.changed === false) rechecks.unchanged += 1;
    else if (row.state === 'skipped' && row.last_error?.startsWith('pinned') === true) rechecks.pinned += 1;
    else if (row.state === 'superseded') rechecks.coalesced += 1;
    else rechecks.other += 1;
  }
  return { rechecks, finalRechecked: finalRechecked.size, sweepsFinding };
}

export async function runCatchUp(set: MatchingSet, rules: RunRules, telling: Telling): Promise<CatchUpRun> {
  const org = await startFakeSalesforceOrg({ org: structuredClone(set.org), ...SALESFORCE_CLIENT, now: () => ORG_NOW });
  const hearing: Record<string, string> = BY_SWEEP.has(telling)
    ? { REMATCH_SWEEP_INTERVAL: SWEEP_INTERVAL }
    : { SALESFORCE_ORG_IDS: ORG_ID, REMATCH_SWEEP_INTERVAL: 'off' };
  const bridge = await startBenchBridge(org, rules, { ADMIN_API_KEYS: ADMIN_KEY, ...hearing });
  const { catchUp: group } = set;
  try {
    let refused = await bridge.post([...set.meetings, ...group.meetings.map(({ meeting }) => meeting)], `catch-up.${telling}`);
    await bridge.settle(DEADLINE_MS);
    const first = answersOf(bridge.remaps).answers;
    const firstAccountAlone = group.meetings.filter(({ meeting }) => {
      const answer = first.get(meeting.id);
      return (
        answer !== undefined &&
        answer.opportunityId === undefined &&
        answer.leadId === undefined &&
        answer.accountId === (meeting.expected as { accountId?: string }).accountId
      );
    }).length;
    const statuses = await Promise.all(group.pins.map(({ meetingId, records, reason }) => pin(bridge, meetingId, { ...records, reason })));
    refused += statuses.filter((status) => status !== 202).length;
    await bridge.settle(DEADLINE_MS);

    const pinned = new Set(group.pins.map((entry) => entry.meetingId));
    const final = new Set(
      set.meetings
        .filter((meeting) => !pinned.has(meeting.id) && judge(meeting, first.get(meeting.id)).opportunity?.right === true)
        .map((meeting) => meeting.id),
    );
    const moving = new Map(group.meetings.filter(({ meeting }) => !pinned.has(meeting.id)).map(({ meeting, after }) => [meeting.id, after]));

    org.resetQueries();
    const changeAt = Date.now();
    const stages: ReadonlyArray<readonly DeferredObject[]> = telling.startsWith('staged')
      ? [['Contact', 'Opportunity'], ['OpportunityContactRole']]
      : [DEFERRED_OBJECTS];
    let sent = 0;
    for (const [index, objects] of stages.entries()) {
      const at = index === 0 ? changeAt : Date.now();
      const saved = catchUp(org, group.deferred, at, objects);
      if (BY_SWEEP.has(telling)) await waitForSweepAfter(bridge, at, DEADLINE_MS);
      else refused += await tellByOutboundMessages(bridge, saved, sent + 1);
      sent += saved.length;
      await bridge.settle(DEADLINE_MS);
    }

    const { jobs, matches } = storedState(bridge.db);
    return {
      telling,
      catchUpMeetings: group.meetings.length,
      firstAccountAlone,
      refused,
      pinned: pinned.size,
      final: final.size,
      score: scoreCatchUp(bridge.remaps, changeAt, { moving, pinned, final }),
      ...rechecksOf(bridge, final),
      queries: org.queries().length,
      dead: Object.entries(jobs)
        .filter(([key]) => key.endsWith(' dead'))
        .reduce((sum, [, count]) => sum + count, 0),
      matches,
    };
  } finally {
    await bridge.stop();
    await org.close();
  }
}
