import type { AmbiguousPolicy } from '../../src/matching/types.ts';
import { type Table, tableOf, type TargetRow, targetRow } from '../lib/report.ts';
import type { RunOutcome } from './bridge-run.ts';
import { CATEGORIES, type Category, type Expected, type LabelledMeeting } from './labels.ts';
import { type Answer, differingAnswers, judge, type Score, score, scoreByCategory, type Verdict } from './score.ts';

/**
 * The matching benchmark's figures from its runs: for each tie policy, the burst run scored
 * against the labels, compared with the one-meeting-at-a-time run; the targets (on the default
 * policy), a table per policy by category, the runs' costs, and every meeting not answered as
 * labelled with what the bridge's match record says.
 */

export const POLICY_LABEL: Record<AmbiguousPolicy, string> = {
  'account-only': 'default policy (ties: the Account alone)',
  hold: 'ties held for an operator',
  newest: 'ties broken by newest modified (the previous rule’s tie-break)',
};

export interface PolicyRuns {
  policy: AmbiguousPolicy;
  burst: RunOutcome;
  alone: RunOutcome;
}

export interface PolicyScore {
  policy: AmbiguousPolicy;
  verdicts: Verdict[];
  overall: Score;
  byCategory: Array<{ category: Category; score: Score }>;
  /** Meetings whose answer differs between the burst and the one-at-a-time run. */
  differing: string[];
  burst: RunOutcome;
  alone: RunOutcome;
}

export function scorePolicy(meetings: readonly LabelledMeeting[], runs: PolicyRuns): PolicyScore {
  const verdicts = meetings.map((meeting) => judge(meeting, runs.burst.answers.get(meeting.id)));
  return {
    policy: runs.policy,
    verdicts,
    overall: score(verdicts),
    byCategory: scoreByCategory(verdicts, Object.keys(CATEGORIES) as Category[]),
    differing: differingAnswers(meetings, runs.burst.answers, runs.alone.answers),
    burst: runs.burst,
    alone: runs.alone,
  };
}

const perMeeting = (run: RunOutcome, meetings: number) => run.queries / meetings;
const sameShare = (result: PolicyScore) => 1 - result.differing.length / result.overall.meetings;

export function targetRows(result: PolicyScore): TargetRow[] {
  const { overall } = result;
  const isDefault = result.policy === 'account-only';
  const label = POLICY_LABEL[result.policy];
  const goal = (text: string, pass: (measured: number) => boolean) =>
    isDefault ? { target: text, pass } : { target: `reported (default's target: ${text})`, pass: () => null };
  return [
    targetRow({
      metric: `${label}: opportunity precision, meetings with one right opportunity`,
      measured: overall.precision,
      unit: '',
      ...goal('≥ 0.99', (m) => m >= 0.99),
    }),
    targetRow({
      metric: `${label}: opportunity recall, meetings with one right opportunity`,
      measured: overall.recall,
      unit: '',
      ...goal('≥ 0.95', (m) => m >= 0.95),
    }),
    targetRow({ metric: `${label}: account accuracy`, measured: overall.accountAccuracy, unit: '', ...goal('≥ 0.98', (m) => m >= 0.98) }),
    targetRow({
      metric: `${label}: meetings that should match nothing but were linked`,
      measured: overall.linkedNone,
      unit: 'meetings',
      ...goal('0', (m) => m === 0),
    }),
    targetRow({
      metric: `${label}: ambiguous meetings silently attached (an opportunity sent)`,
      measured: overall.guessed,
      unit: 'meetings',
      ...goal('0', (m) => m === 0),
    }),
    targetRow({ metric: `${label}: wrong links, all meetings`, measured: overall.wrongLinks, unit: 'meetings', target: 'reported', pass: () => null }),
    targetRow({ metric: `${label}: same answer alone vs in a burst`, measured: 100 * sameShare(result), unit: '%', ...goal('100 %', (m) => m === 100) }),
    targetRow({
      metric: `${label}: SOQL queries per meeting, burst`,
      measured: perMeeting(result.burst, overall.meetings),
      unit: 'queries',
      baseline: { label: 'one meeting at a time', value: perMeeting(result.alone, overall.meetings) },
      ...goal('≤ 2', (m) => m <= 2),
    }),
  ];
}

const ratio = (right: number, of: number) => (of === 0 ? '—' : `${right}/${of}`);
const decimal = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(3));

function rulesOf(result: PolicyScore, category: Category): string {
  const counts = new Map<string, number>();
  for (const verdict of result.verdicts.filter((entry) => entry.meeting.category === category)) {
    const rule = result.burst.matches.get(verdict.meeting.id)?.rule ?? 'no record';
    counts.set(rule, (counts.get(rule) ?? 0) + 1);
  }
  return [...counts].map(([rule, count]) => `${rule} ${count}`).join(', ');
}

export function categoryTable(result: PolicyScore): Table {
  const differing = new Set(result.differing);
  const rows = [...result.byCategory, { category: 'all' as const, score: result.overall }];
  return tableOf(`By category, ${POLICY_LABEL[result.policy]} (burst run)`, rows, [
    ['Category', (row) => (row.category === 'all' ? '**All**' : CATEGORIES[row.category])],
    ['Meetings', (row) => row.score.meetings],
    ['Exact', (row) => row.score.exact],
    ['Right opportunity (recall)', (row) => ratio(row.score.opportunityRight, row.score.withOpportunity)],
    ['Opportunity precision', (row) => decimal(row.score.precision)],
    ['Right account', (row) => ratio(row.score.accountRight, row.score.withAccount)],
    ['Wrong links', (row) => row.score.wrongLinks],
    ['Ambiguous guessed / flagged', (row) => (row.score.ambiguous === 0 ? '—' : `${row.score.guessed} / ${row.score.flagged}`)],
    ['Should match nothing, linked', (row) => (row.score.noneMeetings === 0 ? '—' : `${row.score.linkedNone}/${row.score.noneMeetings}`)],
    [
      'Differs alone vs burst',
      (row) =>
        result.verdicts.filter((verdict) => (row.category === 'all' || verdict.meeting.category === row.category) && differing.has(verdict.meeting.id)).length,
    ],
    ['Decided by (match record rule)', (row) => (row.category === 'all' ? '' : rulesOf(result, row.category))],
  ]);
}

export function runsTable(results: readonly PolicyScore[]): Table {
  const runs = results.flatMap((result) => [result.burst, result.alone].map((run) => ({ run, meetings: result.overall.meetings })));
  const jobs = (run: RunOutcome, filter: (key: string) => boolean) =>
    Object.entries(run.jobs)
      .filter(([key]) => filter(key))
      .reduce((sum, [, count]) => sum + count, 0);
  return tableOf('Runs', runs, [
    ['Policy', ({ run }) => run.policy],
    ['Posting', ({ run }) => (run.mode === 'burst' ? 'all at once' : 'one at a time, each settled')],
    ['Meetings', ({ meetings }) => meetings],
    ['Remaps received', ({ run }) => run.answers.size],
    ['Mapping skipped (no remap)', ({ run }) => jobs(run, (key) => key === 'map-event skipped')],
    ['SOQL queries', ({ run }) => run.queries],
    ['Queries per meeting', ({ run, meetings }) => perMeeting(run, meetings)],
    ['Posts refused', ({ run }) => run.refused],
    ['Duplicate remaps', ({ run }) => run.duplicates],
    ['Jobs dead', ({ run }) => jobs(run, (key) => key.endsWith(' dead'))],
    ['Seconds', ({ run }) => run.durationMs / 1000],
  ]);
}

function describe(records: Answer | Expected, names: ReadonlyMap<string, string>): string {
  if (records === undefined) return 'no remap';
  const name = (id: string) => `${names.get(id) ?? '?'} (${id})`;
  if ('kind' in records && records.kind === 'none') return 'nothing';
  if ('kind' in records && records.kind === 'ambiguous') {
    const account = records.accountId === undefined ? 'nothing (the Accounts tie too)' : `Account ${name(records.accountId)} alone`;
    return `ambiguous: no opportunity; ${account}`;
  }
  const parts = [
    records.opportunityId === undefined ? undefined : `opportunity ${name(records.opportunityId)}`,
    records.accountId === undefined ? undefined : `Account ${name(records.accountId)}`,
    records.leadId === undefined ? undefined : `Lead ${name(records.leadId)}`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? 'no records' : parts.join(' + ');
}

export function missesTable(results: readonly PolicyScore[], names: ReadonlyMap<string, string>): Table {
  const misses = results.flatMap((result) =>
    result.verdicts
      .filter((verdict) => !verdict.exact)
      .sort((a, b) => a.meeting.id.localeCompare(b.meeting.id))
      .map((verdict) => ({ result, verdict })),
  );
  return tableOf('Meetings not answered as labelled (burst run)', misses, [
    ['Policy', ({ result }) => result.policy],
    ['Meeting', ({ verdict }) => verdict.meeting.id],
    ['Situation', ({ verdict }) => verdict.meeting.situation],
    ['Expected', ({ verdict }) => describe(verdict.meeting.expected, names)],
    ['Sent', ({ verdict }) => describe(verdict.answer, names)],
    ['Kind', ({ verdict }) => (verdict.wrong.length > 0 ? 'wrong link' : verdict.guessed ? 'guessed' : 'missed')],
    ['Match record', ({ result, verdict }) => result.burst.matches.get(verdict.meeting.id)?.summary ?? 'none stored'],
  ]);
}
