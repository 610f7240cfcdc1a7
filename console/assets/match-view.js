import { el, fields, formatTime } from './dom.js';

/**
 * "Why this record": a stored match record as an operator reads it — the deciding sentence first,
 * then every candidate with its status, its score fields and why it won or lost, the policy applied
 * to a tie, and the pin. `pinControl(candidate)`, when given, adds a cell to pin that candidate.
 */

const TIMING = { 2: 'open at the meeting', 1: 'created after it', 0: 'closed before it' };
const KIND = { opportunity: 'Opportunity', account: 'Account', lead: 'Lead' };
const OUTCOME_TEXT = { matched: 'matched', ambiguous: 'ambiguous (a tie)', none: 'no record', pinned: 'pinned by an operator' };

const recordCell = (candidate, orgLinks) =>
  el(
    'span',
    { class: 'ids' },
    el('span', { class: 'muted small block', text: KIND[candidate.kind] ?? candidate.kind }),
    orgLinks ? orgLinks.link(candidate.id) : el('code', { text: candidate.id }),
    candidate.name ? el('span', { class: 'block', text: candidate.name }) : null,
  );

const scoreCells = (score) =>
  score ? [String(score.roles), score.owner ? 'yes' : 'no', TIMING[score.timing] ?? String(score.timing), String(score.account)] : ['—', '—', '—', '—'];

/**
 * The candidates as a table; `pinControl` adds a last column.
 * @param {any[]} candidates
 * @param {{ orgLinks?: any, pinControl?: (candidate: any) => Node }} [options]
 */
export function candidateTable(candidates, { orgLinks, pinControl } = {}) {
  if (!candidates?.length)
    return el('p', { class: 'muted', dataset: { field: 'candidates' }, text: 'No candidate was weighed: the rule named the record directly.' });
  const head = ['Record', 'Status', 'Contact roles', 'Owner attends', 'Timing', 'Account rank', 'Why', ...(pinControl ? ['Pin'] : [])];
  return el(
    'div',
    { class: 'table-scroll' },
    el(
      'table',
      { class: 'candidates compact', dataset: { field: 'candidates' } },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          head.map((title) => el('th', { scope: 'col', text: title })),
        ),
      ),
      el(
        'tbody',
        {},
        candidates.map((candidate) =>
          el(
            'tr',
            { dataset: { id: candidate.id, status: candidate.status } },
            el('td', {}, recordCell(candidate, orgLinks)),
            el('td', {}, el('span', { class: `candidate candidate-${candidate.status}`, dataset: { field: 'status' }, text: candidate.status })),
            scoreCells(candidate.score).map((text) => el('td', { text })),
            el('td', { class: 'why', text: candidate.why }),
            pinControl ? el('td', {}, pinControl(candidate)) : null,
          ),
        ),
      ),
    ),
  );
}

const recordsText = (records) =>
  Object.entries(records ?? {})
    .map(([field, id]) => `${field} ${id}`)
    .join(', ') || 'nothing';

/**
 * The section for one match record (or none): summary, candidates, policy, pin.
 * @param {any} match
 * @param {{ orgLinks?: any, pinControl?: (candidate: any) => Node, extra?: Node | null }} [options]
 */
export function whyThisRecord(match, { orgLinks, pinControl, extra } = {}) {
  const heading = el('h3', { text: 'Why this record' });
  if (!match) {
    return el(
      'section',
      { class: 'why-record', dataset: { field: 'why' } },
      heading,
      el('p', {
        class: 'muted',
        dataset: { field: 'match-summary' },
        text: 'No match record: this was not matched by the bridge (a Salesforce event, or a manual delivery).',
      }),
    );
  }
  return el(
    'section',
    { class: 'why-record', dataset: { field: 'why', outcome: match.outcome } },
    heading,
    el('p', { class: 'summary match-summary', dataset: { field: 'match-summary' }, text: match.summary }),
    fields([
      ['Outcome', el('span', { class: `candidate candidate-${match.outcome}`, text: OUTCOME_TEXT[match.outcome] ?? match.outcome })],
      ['Rule', el('code', { text: match.rule })],
      ['Sent', recordsText(match.records)],
      ...(match.policy ? [['Policy', el('span', { dataset: { field: 'policy' } }, el('code', { text: match.policy.name }), `: ${match.policy.applied}`)]] : []),
      ...(match.pin ? [['Pin', el('span', { dataset: { field: 'pin' }, text: `${match.pin.by}, ${formatTime(match.pin.at)}: ${match.pin.reason}` })]] : []),
      ['Decided', formatTime(match.createdAt)],
    ]),
    extra ?? null,
    candidateTable(match.candidates, { orgLinks, pinControl }),
    match.tried?.length
      ? el(
          'details',
          {},
          el('summary', { text: 'Rules tried before' }),
          el(
            'ul',
            {},
            match.tried.map((line) => el('li', { text: line })),
          ),
        )
      : null,
  );
}
