import { attempt, byId, deliveryNo, el, fields, formatTime, labelCells, pretty, showStatus, stateBadge } from './dom.js';
import { latestLoad } from './latest-load.js';
import { createTaggedReads } from './live.js';
import { createPager } from './pager.js';

const PAGE_SIZE = 25;
const SEARCH_DELAY_MS = 300;
const COLUMNS = 7;
const DELIVERY_KINDS = new Set(['remap', 'import']);

/** Inbound events: a search (`q`), filters, paging, and a detail with the raw payload as received and the jobs it made. */
export function createEvents({ api, openDelivery, previewEvent, orgLinks, onToggled = () => {} }) {
  const table = byId('events-table');
  const body = table.querySelector('tbody');
  const read = createTaggedReads(api);
  const source = /** @type {HTMLInputElement} */ (byId('event-source'));
  const state = /** @type {HTMLSelectElement} */ (byId('event-state'));
  const search = /** @type {HTMLInputElement} */ (byId('event-search'));
  const panel = byId('event-detail');
  const pager = createPager('events', () => load());

  const row = (item) =>
    el(
      'tr',
      { dataset: { id: item.id, state: item.state }, onclick: () => void show(item.id, { reveal: true }) },
      // The row opens on click anywhere; the id is also a button, so the keyboard reaches it.
      el('td', {}, el('button', { type: 'button', class: 'link', 'aria-label': `Open event ${item.id}`, text: item.id })),
      el('td', { class: 'clip', title: item.title ?? '', dataset: { field: 'title' }, text: item.title ?? '—' }),
      el('td', { text: item.source }),
      el('td', {}, stateBadge(item.state)),
      el('td', { class: 'clip', title: item.dedupeKey, text: item.dedupeKey }),
      el('td', { text: formatTime(item.receivedAt) }),
      el('td', { class: 'clip', title: item.stateReason ?? '', text: item.stateReason ?? '' }),
    );

  /** `live`: a quiet refresh (live.js); it gives way to any load the operator asked for, and renders only a changed page. */
  const load = latestLoad(render);

  async function render(current, live) {
    const q = search.value.trim();
    const query = { source: source.value.trim(), state: state.value, q, limit: PAGE_SIZE, cursor: pager.cursor() };
    const answer = await attempt(() => read('events', query, { live, signal: current.signal }));
    if (answer === undefined || !answer.changed || current.signal.aborted) return;
    const page = answer.payload;
    body.replaceChildren(
      ...(page.items.length
        ? page.items.map(row)
        : [el('tr', { class: 'empty' }, el('td', { colspan: COLUMNS, class: 'muted', text: q ? `No event matches “${q}”.` : 'No events match.' }))]),
    );
    labelCells(table);
    table.dataset.q = q;
    if (panel.dataset.id) body.querySelector(`tr[data-id="${panel.dataset.id}"]`)?.classList.add('selected');
    pager.loaded(page.nextCursor);
  }

  /** `restoreFocus`: the operator closed it; the focus goes back to its row in the list. */
  function hide({ restoreFocus = false } = {}) {
    const id = panel.dataset.id;
    const wasOpen = !panel.hidden;
    panel.hidden = true;
    delete panel.dataset.id;
    panel.parentElement?.classList.remove('with-detail');
    body.querySelector('tr.selected')?.classList.remove('selected');
    if (restoreFocus) /** @type {HTMLElement | null} */ (body.querySelector(`tr[data-id="${id}"] button`))?.focus();
    if (wasOpen) onToggled();
  }
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') hide({ restoreFocus: true });
  });

  const jobItem = (job) =>
    el(
      'li',
      {},
      DELIVERY_KINDS.has(job.kind)
        ? el('button', { type: 'button', class: 'link', onclick: () => openDelivery(job.id), text: `${deliveryNo(job)} ${job.kind}` })
        : `${job.kind} ${deliveryNo(job)}`,
      ' ',
      stateBadge(job.state),
      job.lastError ? ` ${job.lastError}` : '',
    );

  /** `reveal`: an operator opened it; on a narrow screen the panel is below the table, so it is scrolled to and takes the focus. */
  async function show(id, { reveal = false } = {}) {
    const detail = await attempt(() => api.get(`events/${id}`));
    if (detail === undefined) return;
    const { event, message } = detail;
    orgLinks.learn(event, message);
    panel.replaceChildren(
      el(
        'div',
        { class: 'detail-head' },
        el('h2', { tabindex: -1 }, `Event #${event.id} `, stateBadge(event.state)),
        el('button', { type: 'button', id: 'event-close', class: 'secondary', onclick: () => hide({ restoreFocus: true }), text: 'Close' }),
      ),
      el(
        'div',
        { class: 'actions' },
        el('button', { type: 'button', id: 'event-reprocess', onclick: () => void reprocess(event.id) }, 'Reprocess with today’s rules'),
        el('button', { type: 'button', id: 'event-preview', class: 'secondary', onclick: () => previewEvent(event.id) }, 'Preview mapping'),
      ),
      fields([
        ['Title', event.title],
        ['Source', event.source],
        ['Sender', event.senderId],
        ['Key', event.dedupeKey],
        ['Received', formatTime(event.receivedAt)],
        ['Reason', event.stateReason],
      ]),
      el('h3', { text: 'Jobs it produced' }),
      detail.jobs.length ? el('ul', {}, detail.jobs.map(jobItem)) : el('p', { class: 'muted', text: 'None.' }),
      el('h3', { text: `Raw payload of message #${message.id}, as received` }),
      el('pre', { dataset: { field: 'raw' }, text: message.rawPayload }),
      el('h3', { text: 'Parsed' }),
      el('pre', { text: pretty(event.parsedPayload) }),
    );
    panel.dataset.id = String(event.id);
    for (const other of body.querySelectorAll('tr')) other.classList.toggle('selected', other.getAttribute('data-id') === String(event.id));
    const opened = panel.hidden;
    panel.hidden = false;
    panel.parentElement?.classList.add('with-detail');
    if (opened) onToggled();
    if (reveal) {
      panel.querySelector('h2')?.focus({ preventScroll: true });
      panel.scrollIntoView({ block: 'nearest' });
    }
  }

  async function reprocess(id) {
    const answer = await attempt(() => api.post(`events/${id}/reprocess`));
    if (answer === undefined) return;
    showStatus(`Mapping job #${answer.job.id} queued for event #${id}.`);
    await show(id);
  }

  const reload = () => {
    pager.reset();
    return load();
  };
  state.addEventListener('change', () => void reload());
  source.addEventListener('change', () => void reload());
  let searchTimer;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void reload(), SEARCH_DELAY_MS);
  });
  byId('event-search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(searchTimer);
    void reload();
  });
  byId('events-refresh').addEventListener('click', () => void load());

  return { load, show, hide, shownId: () => panel.dataset.id ?? null };
}
