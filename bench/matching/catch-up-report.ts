import { type Table, tableOf, type TargetRow, targetRow } from '../lib/report.ts';
import type { CatchUpRun, Telling } from './catch-up-run.ts';
import type { CatchUpSet } from './catch-up-set.ts';
import type { SentRecords } from './labels.ts';

/**
 * The catch-up phase's figures (docs/performance.md, matching: catch-up): per way the bridge
 * heard of the change, the targets (catch-up meetings moved, remaps that changed nothing, control
 * meetings touched, and the time taken), a table of the runs, and every catch-up meeting that did
 * not reach its opportunity with what the bridge's newest match record says.
 */

export const TELLING_LABEL: Record<Telling, string> = {
  'outbound-message': 'catch-up told by Outbound Messages',
  staged: 'catch-up told by Outbound Messages, contact roles saved after their opportunities',
  sweep: 'catch-up found by the sweep alone',
  'staged-sweep': 'catch-up found by the sweep alone, contact roles saved a sweep after their opportunities',
};

const share = (run: CatchUpRun) => (run.score.moving === 0 ? Number.NaN : (100 * run.score.moved) / run.score.moving);
const seconds = (ms: number | undefined) => (ms === undefined ? Number.NaN : ms / 1000);

export function catchUpTargetRows(run: CatchUpRun): TargetRow[] {
  const label = TELLING_LABEL[run.telling];
  const within = run.telling === 'sweep' ? ', within one sweep' : run.telling === 'staged-sweep' ? ', within a sweep of the last save' : '';
  return [
    targetRow({
      metric: `${label}: catch-up meetings moved to the right opportunity${within}`,
      measured: share(run),
      unit: '%',
      target: '≥ 95 %',
      pass: (m) => m >= 95,
    }),
    targetRow({
      metric: `${label}: seconds from the change to the last remap`,
      measured: seconds(run.score.lastMs),
      unit: 's',
      target: 'reported',
      pass: () => null,
    }),
    targetRow({
      metric: `${label}: re-match remaps that changed nothing`,
      measured: run.score.unchanged.length,
      unit: 'remaps',
      target: '0',
      pass: (m) => m === 0,
    }),
    targetRow({
      metric: `${label}: pinned or final (already right) meetings touched`,
      measured: run.score.pinnedTouched.length + run.score.finalTouched.length,
      unit: 'meetings',
      target: '0',
      pass: (m) => m === 0,
    }),
  ];
}

const count = (run: CatchUpRun, standing: string) => run.score.notMoved.filter((entry) => entry.standing === standing).length;

export function catchUpTable(runs: readonly CatchUpRun[]): Table {
  return tableOf('Catch-up: opportunities created after their meetings (default policy)', runs, [
    ['How the bridge heard', (run) => TELLING_LABEL[run.telling]],
    ['Catch-up meetings, first answer the Account alone', (run) => `${run.firstAccountAlone}/${run.catchUpMeetings}`],
    ['Moved to the right opportunity', (run) => `${run.score.moved}/${run.score.moving}`],
    ['Still no opportunity', (run) => count(run, 'still no opportunity')],
    ['Wrong opportunity', (run) => count(run, 'wrong opportunity')],
    ['Seconds to the first / last remap', (run) => `${seconds(run.score.firstMs).toFixed(2)} / ${seconds(run.score.lastMs).toFixed(2)}`],
    ['Remaps after the change', (run) => run.score.remapsAfter],
    ['Remaps that changed nothing', (run) => run.score.unchanged.length],
    ['Pinned touched', (run) => `${run.score.pinnedTouched.length}/${run.pinned}`],
    ['Final touched (re-checked)', (run) => `${run.score.finalTouched.length}/${run.final} (${run.finalRechecked})`],
    [
      'Re-checks: changed / unchanged / pinned / coalesced / other',
      ({ rechecks: r }) => `${r.changed} / ${r.unchanged} / ${r.pinned} / ${r.coalesced} / ${r.other}`,
    ],
    ['Sweeps that found the change', (run) => (run.telling.endsWith('sweep') ? run.sweepsFinding : '—')],
    ['SOQL queries after the change', (run) => run.queries],
    ['Refused (posts, pins, messages)', (run) => run.refused],
    ['Jobs dead', (run) => run.dead],
  ]);
}

function named(records: SentRecords | undefined, names: ReadonlyMap<string, string>): string {
  if (records === undefined) return 'no remap';
  const name = (id: string) => `${names.get(id) ?? '?'} (${id})`;
  const parts = [
    records.opportunityId === undefined ? undefined : `opportunity ${name(records.opportunityId)}`,
    records.accountId === undefined ? undefined : `Account ${name(records.accountId)}`,
    records.leadId === undefined ? undefined : `Lead ${name(records.leadId)}`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? 'no records' : parts.join(' + ');
}

export function catchUpMissesTable(runs: readonly CatchUpRun[], group: CatchUpSet, names: ReadonlyMap<string, string>): Table {
  const byId = new Map(group.meetings.map((entry) => [entry.meeting.id, entry]));
  const misses = runs.flatMap((run) => run.score.notMoved.map((miss) => ({ run, miss, entry: byId.get(miss.id)! })));
  return tableOf('Catch-up meetings not moved to their opportunity', misses, [
    ['How the bridge heard', ({ run }) => TELLING_LABEL[run.telling]],
    ['Meeting', ({ miss }) => miss.id],
    ['Situation', ({ entry }) => entry.meeting.situation],
    ['Expected', ({ entry }) => named(entry.after, names)],
    ['Sent last', ({ miss }) => named(miss.records, names)],
    ['Standing', ({ miss }) => miss.standing],
    ['Newest match record', ({ run, miss }) => run.matches.get(miss.id)?.summary ?? 'none stored'],
  ]);
}

/** How the catch-up phase was run, in words, from the set it ran on. */
export function catchUpNotes(group: CatchUpSet, sweepInterval: string): string[] {
  const pinnedCatchUp = group.pins.filter((pin) => group.meetings.some(({ meeting }) => meeting.id === pin.meetingId)).length;
  const { Opportunity: opportunities, OpportunityContactRole: roles, Contact: contacts } = group.deferred;
  return [
    `Catch-up (bench/matching/catch-up-*.ts): ${group.meetings.length} more meetings, each with an Account that has no opportunity in the window at first (none at all; a deal lost long before; an attendee not yet a Contact, the Account found by domain; a first call the rep later opens two deals for), so each first answer is the Account alone. Each run is a fresh bridge on a fresh copy of the org, default policy: the first pass posts every meeting at once (the ${group.meetings.length} with the categories'), then ${group.pins.length} meetings are pinned through \`PUT /admin/meetings/:key/pin\` (${pinnedCatchUp} catch-up meetings to their Account, ${group.pins.length - pinnedCatchUp} meetings already on their right opportunity). Then the org gains, with a SystemModstamp of now, ${opportunities.length} opportunities (one per catch-up meeting, created days after it with the attendee as its contact role; for the two-deal case a second one with no role; and an add-on with no attending role on the Accounts of ${group.decoyTargets.length} meetings already on their right opportunity, which must not move them), ${roles.length} contact roles and ${contacts.length} Contacts.`,
    `Told by Outbound Messages: one message per record, all posted at once to \`/salesforce/outbound-message\` (SALESFORCE_ORG_IDS set, REMATCH_SWEEP_INTERVAL=off). The sweep: no message at all, REMATCH_SWEEP_INTERVAL=${sweepInterval}; the run ends when the first sweep scheduled after the change has finished and the queue settled (so "within one sweep"). Staged, either way: the records in the order a rep saves them, the Contacts and opportunities first, the queue settled (after a sweep, for the sweep), then the contact roles; the time runs from the first save.`,
    'Catch-up scoring (bench/matching/catch-up-score.ts): a catch-up meeting moved when its newest remap names its new opportunity and its Account; the control is every meeting pinned or whose first answer was its right opportunity, touched when any remap of it arrives after the change; a remap after the change changed nothing when it names the records of the meeting’s remap before it; times run from the change (the records saved) to the first and the last remap after it.',
  ];
}
