import { attempt, byId, el, formatTime, labelCells } from './dom.js';
import { createTaggedReads } from './live.js';

const EXAMPLE_COLUMNS = ['Time', 'Sender', 'Reason', 'Route'];

/**
 * Refused traffic (GET /admin/refusals): per inbound route and reason, how many requests were
 * refused in the window and the newest few examples (time, sender address, reason, route). The API
 * keeps no body, and neither does this view.
 */
export function createRefusals({ api }) {
  const list = byId('refusals-list');
  const note = byId('refusals-note');
  const hours = /** @type {HTMLSelectElement} */ (byId('refusals-hours'));
  const read = createTaggedReads(api);

  const examples = (items) => {
    const table = el(
      'table',
      { class: 'compact cards-narrow', dataset: { field: 'examples' } },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          EXAMPLE_COLUMNS.map((title) => el('th', { scope: 'col', text: title })),
        ),
      ),
      el(
        'tbody',
        {},
        items.map((example) =>
          el(
            'tr',
            {},
            el('td', { text: formatTime(example.at) }),
            el('td', {}, el('code', { dataset: { field: 'sender' }, text: example.sender })),
            el('td', { text: example.reason }),
            el('td', { class: 'clip', title: example.route, text: example.route }),
          ),
        ),
      ),
    );
    labelCells(table);
    return el('div', { class: 'table-scroll' }, table);
  };

  const card = (entry) =>
    el(
      'article',
      { class: 'panel refusal', dataset: { route: entry.route, reason: entry.reason, count: entry.count } },
      el('h3', {}, el('span', { class: 'count', text: entry.count }), el('code', { text: entry.reason }), ' on ', el('code', { text: entry.route })),
      el('p', { class: 'muted small', text: `Last refused ${formatTime(entry.lastAt)}; the newest ${entry.examples.length}:` }),
      examples(entry.examples),
    );

  /** `live`: a quiet refresh (live.js) that renders only a changed answer. */
  async function load({ live = false } = {}) {
    const answer = await attempt(() => read('refusals', { hours: hours.value }, { live }));
    if (answer === undefined || !answer.changed) return;
    const summary = answer.payload;
    const span = `the last ${summary.windowHours} hours`;
    note.textContent =
      summary.total === 0
        ? `Nothing was refused in ${span}.`
        : `${summary.total} refused in ${span} (since ${formatTime(summary.since)}), by route and reason, the most refused first. Bodies are never kept.`;
    note.dataset.total = String(summary.total);
    list.replaceChildren(...summary.routes.map(card));
    list.dataset.loaded = String(summary.windowHours);
  }

  hours.addEventListener('change', () => void load());
  byId('refusals-refresh').addEventListener('click', () => void load());
  return { load };
}
