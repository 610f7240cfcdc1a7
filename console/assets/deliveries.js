import { attempt, byId, el, formatTime, stateBadge } from './dom.js';
import { createPager } from './pager.js';

const PAGE_SIZE = 25;

/** The deliveries table: state and kind filters, keyset paging, a click opens the detail. */
export function createDeliveries({ api, detail }) {
  const body = byId('deliveries-table').querySelector('tbody');
  const stateFilter = /** @type {HTMLSelectElement} */ (byId('delivery-state'));
  const kindFilter = /** @type {HTMLSelectElement} */ (byId('delivery-kind'));
  const pager = createPager('deliveries', () => load());

  function row(item) {
    const tr = el(
      'tr',
      {
        dataset: { id: item.id, state: item.state },
        onclick: (event) => {
          for (const other of body.querySelectorAll('tr.selected')) other.classList.remove('selected');
          event.currentTarget.classList.add('selected');
          void detail.show(item.id);
        },
      },
      el('td', { text: item.id }),
      el('td', { text: item.kind }),
      el('td', {}, stateBadge(item.state)),
      el('td', { class: 'clip', title: item.meeting ?? '', text: item.meeting ?? '—' }),
      el('td', { text: item.attempts }),
      el('td', { text: formatTime(item.createdAt) }),
      el('td', { class: 'clip', title: item.lastError ?? '', text: item.lastError ?? '' }),
    );
    if (detail.shownId() === item.id) tr.classList.add('selected');
    return tr;
  }

  async function load() {
    const page = await attempt(() => api.get('deliveries', { state: stateFilter.value, kind: kindFilter.value, limit: PAGE_SIZE, cursor: pager.cursor() }));
    if (page === undefined) return;
    body.replaceChildren(
      ...(page.items.length ? page.items.map(row) : [el('tr', { class: 'empty' }, el('td', { colspan: 7, class: 'muted', text: 'No deliveries match.' }))]),
    );
    byId('deliveries-table').dataset.loaded = stateFilter.value || 'any';
    pager.loaded(page.nextCursor);
  }

  const reload = () => {
    pager.reset();
    return load();
  };
  stateFilter.addEventListener('change', () => void reload());
  kindFilter.addEventListener('change', () => void reload());
  byId('deliveries-refresh').addEventListener('click', () => void load());

  return { load, reload };
}
