import { attempt, byId, deliveryNo, el, formatTime, labelCells, stateBadge } from './dom.js';
import { latestLoad } from './latest-load.js';
import { createTaggedReads } from './live.js';
import { createPager } from './pager.js';

const PAGE_SIZE = 25;
const SEARCH_DELAY_MS = 300;
const COLUMNS = 7;

/** Salesforce ids of a row, whichever way the API lists them (an array, or named fields). */
export function salesforceIdsOf(item) {
  const ids = item.salesforceIds;
  if (Array.isArray(ids)) return ids.filter((id) => typeof id === 'string');
  if (ids && typeof ids === 'object') return Object.values(ids).filter((id) => typeof id === 'string');
  return [];
}

/** The deliveries table: search, state and kind filters, keyset paging, a click opens the detail. */
export function createDeliveries({ api, detail, orgLinks }) {
  const table = byId('deliveries-table');
  const body = table.querySelector('tbody');
  const stateFilter = /** @type {HTMLSelectElement} */ (byId('delivery-state'));
  const kindFilter = /** @type {HTMLSelectElement} */ (byId('delivery-kind'));
  const search = /** @type {HTMLInputElement} */ (byId('delivery-search'));
  const orgNote = byId('deliveries-org-note');
  const pager = createPager('deliveries', () => load());
  const read = createTaggedReads(api);

  function open(event, id) {
    for (const other of body.querySelectorAll('tr.selected')) other.classList.remove('selected');
    /** @type {HTMLElement} */ (event.currentTarget).closest('tr')?.classList.add('selected');
    void detail.show(id, { reveal: true });
  }

  function row(item) {
    const label = item.title ?? item.sourceRef ?? item.meeting ?? '—';
    const ids = salesforceIdsOf(item);
    const tr = el(
      'tr',
      { dataset: { id: item.id, number: item.number, state: item.state }, onclick: (event) => open(event, item.id) },
      // The row opens on click anywhere; the number is also a button, so the keyboard reaches it.
      el('td', {}, el('button', { type: 'button', class: 'link', 'aria-label': `Open delivery ${deliveryNo(item)}`, text: item.number ?? item.id })),
      el(
        'td',
        { class: 'clip', title: label, dataset: { field: 'title' } },
        el('span', { text: label }),
        el('span', { class: 'muted small block', text: item.title == null && item.sourceRef != null ? `${item.kind} · source ref` : item.kind }),
      ),
      el('td', { dataset: { field: 'start' }, text: item.startTime ? formatTime(item.startTime) : '—' }),
      el(
        'td',
        { dataset: { field: 'salesforce' }, class: 'ids' },
        ids.length
          ? ids.map((id) => [
              orgLinks.link(id),
              // Clicking a record link opens Salesforce, not the delivery.
              ' ',
            ])
          : '—',
      ),
      el('td', {}, stateBadge(item.state)),
      el('td', { text: item.attempts }),
      el('td', { class: 'clip', title: item.lastError ?? '', dataset: { field: 'last-error' }, text: item.lastError ?? '' }),
    );
    for (const anchor of tr.querySelectorAll('a')) anchor.addEventListener('click', (event) => event.stopPropagation());
    if (detail.shownId() === item.id) tr.classList.add('selected');
    return tr;
  }

  /** `live`: a quiet refresh (live.js); it gives way to any load the operator asked for, and renders only a changed page. */
  const load = latestLoad(render);

  async function render(current, live) {
    await orgLinks.learnFromLatest().catch(() => undefined);
    if (current.signal.aborted) return;
    const q = search.value.trim();
    const query = { state: stateFilter.value, kind: kindFilter.value, q, limit: PAGE_SIZE, cursor: pager.cursor() };
    const answer = await attempt(() => read('deliveries', query, { live, signal: current.signal }));
    if (answer === undefined || !answer.changed || current.signal.aborted) return;
    const page = answer.payload;
    // The focus stays on the row it was on (a keyboard user walking the list) when the rows are rebuilt.
    const focusedId = /** @type {HTMLElement | null} */ (document.activeElement)?.closest?.('#deliveries-table tr')?.getAttribute('data-id');
    body.replaceChildren(
      ...(page.items.length
        ? page.items.map(row)
        : [el('tr', { class: 'empty' }, el('td', { colspan: COLUMNS, class: 'muted', text: q ? `No delivery matches “${q}”.` : 'No deliveries match.' }))]),
    );
    labelCells(table);
    if (focusedId) /** @type {HTMLElement | null} */ (body.querySelector(`tr[data-id="${focusedId}"] button`))?.focus({ preventScroll: true });
    table.dataset.loaded = stateFilter.value || 'any';
    table.dataset.q = q;
    orgNote.textContent =
      page.items.some((item) => salesforceIdsOf(item).length) && !orgLinks.known()
        ? 'Salesforce ids are plain text: the API does not name the org, and no Outbound Message has told its URL yet.'
        : '';
    pager.loaded(page.nextCursor);
  }

  const reload = () => {
    pager.reset();
    return load();
  };
  let searchTimer;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void reload(), SEARCH_DELAY_MS);
  });
  byId('delivery-search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(searchTimer);
    void reload();
  });
  stateFilter.addEventListener('change', () => void reload());
  kindFilter.addEventListener('change', () => void reload());
  byId('deliveries-refresh').addEventListener('click', () => void load());
  // The detail closed: its row is no longer the selected one.
  const unselect = () => body.querySelector('tr.selected')?.classList.remove('selected');

  return { load, reload, unselect };
}
