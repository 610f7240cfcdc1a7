import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { startFakeSalesforceOrg } from '../test/fakes/fake-salesforce-org/index.ts';
import { type BenchResult, measure, renderMarkdown, reportResult, resultsDir } from './lib/report.ts';
import { LOOKUP_CACHE_TTL, SALESFORCE_CLIENT } from './matching/bench-bridge.ts';
import { runMeetings } from './matching/bridge-run.ts';
import { catchUpMissesTable, catchUpNotes, catchUpTable, catchUpTargetRows, TELLING_LABEL } from './matching/catch-up-report.ts';
import { type CatchUpRun, runCatchUp, SWEEP_INTERVAL, type Telling } from './matching/catch-up-run.ts';
import { generateMatchingSet } from './matching/generate.ts';
import { CATEGORIES } from './matching/labels.ts';
import { ORG_NOW } from './matching/org-builder.ts';
import { categoryTable, missesTable, POLICY_LABEL, type PolicyScore, runsTable, scorePolicy, targetRows } from './matching/report-tables.ts';

/**
 * bench:matching: how often the bridge links a meeting to the right CRM records. A generated
 * org (seeded: the same on every run) is served by the SOQL-evaluating fake Salesforce; a
 * labelled set of meetings, one category per situation, goes through the real bridge in this
 * process (signed `POST /calendar/events`, the jsforce directory, matching, the remap) and each
 * remap is scored against its label. Each tie policy runs twice: every meeting at once, and one
 * at a time, to show a meeting's answer does not depend on the meetings looked up beside it.
 * Then the catch-up phase: opportunities created after their meetings, on fresh bridges under the
 * default policy, told by Outbound Messages or found by the sweep, every record saved at once or
 * the contact roles after their opportunities.
 */

const SEED = Number(process.env.BENCH_MATCHING_SEED ?? 20_260_331);
const PER_CATEGORY = Number(process.env.BENCH_MATCHING_PER_CATEGORY ?? 15);
const POLICIES = ['account-only', 'newest'] as const;
const TELLINGS: readonly Telling[] = ['outbound-message', 'staged', 'sweep', 'staged-sweep'];
/** Account Types the mapping file excludes (comma-separated); none by default, as the bridge ships. */
const EXCLUDE_ACCOUNT_TYPES = (process.env.BENCH_MATCHING_EXCLUDE_ACCOUNT_TYPES ?? '')
  .split(',')
  .map((type) => type.trim())
  .filter((type) => type !== '');

export const runMatchingBench = (): Promise<BenchResult> =>
  measure('matching', 'Matching accuracy: labelled meetings through POST /calendar/events (npm run bench:matching)', async () => {
    const set = generateMatchingSet({ seed: SEED, perCategory: PER_CATEGORY });
    const org = await startFakeSalesforceOrg({ org: set.org, ...SALESFORCE_CLIENT, now: () => ORG_NOW });
    const results: PolicyScore[] = [];
    try {
      for (const policy of POLICIES) {
        const rules = { policy, excludeAccountTypes: EXCLUDE_ACCOUNT_TYPES };
        const burst = await runMeetings(set.meetings, org, rules, 'burst');
        const alone = await runMeetings(set.meetings, org, rules, 'alone');
        const result = scorePolicy(set.meetings, { policy, burst, alone });
        results.push(result);
        const { overall } = result;
        console.log(
          `matching ${policy}: precision ${overall.precision.toFixed(3)}, recall ${overall.recall.toFixed(3)}, account ${overall.accountAccuracy.toFixed(3)}, ` +
            `wrong links ${overall.wrongLinks}, ambiguous guessed ${overall.guessed}/${overall.ambiguous}, differing alone vs burst ${result.differing.length}`,
        );
      }
    } finally {
      await org.close();
    }
    const catchUps: CatchUpRun[] = [];
    for (const telling of TELLINGS) {
      const run = await runCatchUp(set, { policy: 'account-only', excludeAccountTypes: EXCLUDE_ACCOUNT_TYPES }, telling);
      catchUps.push(run);
      console.log(
        `matching ${TELLING_LABEL[telling]}: moved ${run.score.moved}/${run.score.moving} in ${((run.score.lastMs ?? Number.NaN) / 1000).toFixed(2)} s, ` +
          `remaps that changed nothing ${run.score.unchanged.length}, pinned touched ${run.score.pinnedTouched.length}, final touched ${run.score.finalTouched.length}`,
      );
    }

    const counts = Object.entries(set.org)
      .filter(([, records]) => records.length > 0)
      .map(([sObject, records]) => `${records.length} ${sObject}`)
      .join(', ');
    const notes = [
      `The org (seed ${SEED}, bench/matching/): ${counts}. ${set.meetings.length} meetings, ${PER_CATEGORY} in each of ${Object.keys(CATEGORIES).length} categories, posted in a shuffled order; meetings fall in the quarter before the org's clock (${new Date(ORG_NOW).toISOString().slice(0, 10)}), each category's records made for it, beside Accounts no meeting is about, three partner Accounts shared by every partner meeting, and the catch-up meetings' Accounts and Contacts (what the CRM gains later is held out: see the catch-up notes).`,
      `The bridge is \`startBridge\` in this process on SQLite (a fresh directory per run) with its defaults (WORKER_CONCURRENCY=4), Salesforce lookups through the real jsforce directory with the client credentials flow against the fake org, SALESFORCE_LOOKUP_CACHE_TTL=${LOOKUP_CACHE_TTL} (no meeting is answered from another's cached lookup), INTERNAL_EMAIL_DOMAINS=seller.example, MOMENTUM_RATE_LIMIT=off, and a mapping file whose \`matching\` section sets \`ambiguous\` (plus the default windows, 30 and 14 days) and ${EXCLUDE_ACCOUNT_TYPES.length === 0 ? 'excludes no Account type (the default)' : `excludeAccountTypes ${JSON.stringify(EXCLUDE_ACCOUNT_TYPES)}`}; personal-address Contacts on, no opportunity teams.`,
      'Every meeting is signed (Standard Webhooks) and posted to `POST /calendar/events` with its own id and source type; its answer is the `salesforceRecords` of the remap that reached the fake Momentum with that source id, or nothing when the mapping was skipped. "Burst": all posted at once (32 connections), then the queue settles; "alone": one at a time, each after the previous one settled.',
      'Scoring (bench/matching/score.ts): precision and recall on meetings with one right opportunity; account accuracy on meetings whose label names an Account (that Account sent, or no Account but the right opportunity); a wrong link is a record sent that is not the label’s (any record on a meeting that should match nothing; outside the tie on an ambiguous one); an ambiguous meeting is guessed when an opportunity of the tie is sent; "exact" is the whole label and nothing else. Labels say what the meeting is about, not what the rules give.',
    ];
    for (const result of results) {
      for (const run of [result.burst, result.alone]) {
        if (run.refused > 0) notes.push(`WARNING: ${run.policy} ${run.mode}: ${run.refused} posts were not answered 202.`);
        if (run.duplicates > 0) notes.push(`WARNING: ${run.policy} ${run.mode}: ${run.duplicates} remaps arrived more than once.`);
      }
      if (result.differing.length > 0) notes.push(`${POLICY_LABEL[result.policy]}: answers differ alone vs burst for ${result.differing.join(', ')}.`);
    }
    notes.push(...catchUpNotes(set.catchUp, SWEEP_INTERVAL));
    for (const run of catchUps) if (run.refused > 0) notes.push(`WARNING: ${TELLING_LABEL[run.telling]}: ${run.refused} posts, pins or messages were refused.`);

    return {
      settings: {
        seed: SEED,
        perCategory: PER_CATEGORY,
        meetings: set.meetings.length,
        lookupCacheTtl: LOOKUP_CACHE_TTL,
        policies: POLICIES.join(', '),
        excludeAccountTypes: EXCLUDE_ACCOUNT_TYPES.join(', '),
        catchUpMeetings: set.catchUp.meetings.length,
        sweepInterval: SWEEP_INTERVAL,
      },
      targets: [...results.flatMap(targetRows), ...catchUps.flatMap(catchUpTargetRows)],
      tables: [
        ...results.map(categoryTable),
        runsTable(results),
        missesTable(results, set.names),
        catchUpTable(catchUps),
        catchUpMissesTable(catchUps, set.catchUp, set.names),
      ],
      notes,
    };
  });

if (import.meta.main) {
  const result = await runMatchingBench();
  reportResult(result);
  // The one matching result kept in the repository (bench/results/matching.json, the hand-over to run-all, is not).
  writeFileSync(path.join(resultsDir, 'matching-latest.md'), renderMarkdown([result], result.startedAt));
}
