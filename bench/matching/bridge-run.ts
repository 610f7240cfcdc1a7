import type { DatabaseSync } from 'node:sqlite';

import type { AmbiguousPolicy } from '../../src/matching/types.ts';
import type { FakeSalesforceOrg } from '../../test/fakes/fake-salesforce-org/index.ts';
import { type RemapArrival, type RunRules, startBenchBridge } from './bench-bridge.ts';
import type { LabelledMeeting } from './labels.ts';
import type { Answer } from './score.ts';

/**
 * One pass of the labelled meetings through the real bridge (bench-bridge.ts): every meeting is
 * signed and posted to `POST /calendar/events`, looked up in the fake Salesforce org by the real
 * jsforce directory, and its remap read at a fake Momentum by source id. `burst` posts them all at
 * once, `alone` one at a time, each after the previous one's jobs have settled. The bridge's match
 * records say why, for the report.
 */

const BURST_DEADLINE_MS = 180_000;
const ALONE_DEADLINE_MS = 20_000;

export type Mode = 'burst' | 'alone';

export interface RunOutcome {
  policy: AmbiguousPolicy;
  mode: Mode;
  answers: Map<string, Answer>;
  /** Meetings whose remap arrived more than once. */
  duplicates: number;
  /** SOQL queries the org received during the run. */
  queries: number;
  /** Posts not answered 202. */
  refused: number;
  /** Jobs by `kind state` when the run ended. */
  jobs: Record<string, number>;
  /** The newest match record per meeting id: the rule that decided and its summary. */
  matches: Map<string, { rule: string; summary: string }>;
  durationMs: number;
}

/** The newest answer per meeting id, and how many remaps repeated a meeting. */
export function answersOf(remaps: readonly RemapArrival[]): { answers: Map<string, Answer>; duplicates: number } {
  const answers = new Map<string, Answer>();
  for (const remap of remaps) answers.set(remap.id, remap.records);
  return { answers, duplicates: remaps.length - answers.size };
}

export function storedState(db: DatabaseSync): Pick<RunOutcome, 'jobs' | 'matches'> {
  const jobs: Record<string, number> = {};
  for (const row of db.prepare('SELECT kind, state, count(*) AS n FROM jobs GROUP BY kind, state').all() as Array<{ kind: string; state: string; n: number }>)
    jobs[`${row.kind} ${row.state}`] = Number(row.n);
  const matches = new Map<string, { rule: string; summary: string }>();
  // The meeting key is `calendar:<origin>:<id>`; rows come oldest first, so the newest stays.
  for (const row of db.prepare('SELECT meeting_key, rule, summary FROM match_records ORDER BY id').all() as Array<
    Record<'meeting_key' | 'rule' | 'summary', string>
  >)
    matches.set(row.meeting_key.slice(row.meeting_key.lastIndexOf(':') + 1), { rule: row.rule, summary: row.summary });
  return { jobs, matches };
}

export async function runMeetings(meetings: readonly LabelledMeeting[], org: FakeSalesforceOrg, rules: RunRules, mode: Mode): Promise<RunOutcome> {
  const bridge = await startBenchBridge(org, rules);
  org.resetQueries();
  const started = Date.now();
  const prefix = `${rules.policy}.${mode}`;
  let refused = 0;
  try {
    if (mode === 'burst') {
      refused = await bridge.post(meetings, prefix);
      await bridge.settle(BURST_DEADLINE_MS);
    } else {
      for (const meeting of meetings) {
        refused += await bridge.post([meeting], prefix);
        await bridge.settle(ALONE_DEADLINE_MS);
      }
    }
    const durationMs = Date.now() - started;
    return { policy: rules.policy, mode, ...answersOf(bridge.remaps), queries: org.queries().length, refused, ...storedState(bridge.db), durationMs };
  } finally {
    await bridge.stop();
  }
}
