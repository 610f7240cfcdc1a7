import { attempt, byId, el, formatTime, labelCells } from './dom.js';

const SEARCH_DELAY_MS = 300;
const COLUMNS = 5;

/**
 * "What happened to meeting X?" (GET /admin/meetings?q=): text found anywhere a meeting left it
 * (a title, an id, an email, a Salesforce id), one row per meeting source, newest activity first;
 * a row opens the meeting's page.
 */
export function createMeetingSearch({ api, openMeeting }) {
  const table = byId('meetings-table');
  const body = table.querySelector('tbody');
  const search = /** @type {HTMLInputElement} */ (byId('meeting-search'));
  const note = byId('meetings-note');
  let inFlight;

  const row = (hit) =>
    el(
      'tr',
      { dataset: { key: hit.meetingKey }, onclick: () => openMeeting(hit.meetingKey) },
      // The row opens on click anywhere; the title is also a button, so the keyboard reaches it.
      el('td', { class: 'clip', title: hit.title ?? hit.meetingKey }, el('button', { type: 'button', class: 'link', text: hit.title ?? hit.meetingKey })),
      el('td', { text: hit.start ? formatTime(hit.start) : '—' }),
      el('td', { dataset: { field: 'sources' }, text: hit.sources.map((source) => source.source).join(', ') }),
      el('td', { text: formatTime(hit.lastActivityAt) }),
      el('td', { class: 'muted', text: `${hit.counts.events} events, ${hit.counts.matches} matches, ${hit.counts.deliveries} deliveries` }),
    );

  async function load() {
    const q = search.value.trim();
    inFlight?.abort();
    if (q === '') {
      body.replaceChildren();
      note.textContent = 'Type a title, an id (calendar event, Zoom meeting, Salesforce record) or an email.';
      table.dataset.q = '';
      return;
    }
    const current = new AbortController();
    inFlight = current;
    const answer = await attempt(() => api.get('meetings', { q }, { signal: current.signal }));
    if (answer === undefined || current.signal.aborted) return;
    body.replaceChildren(
      ...(answer.items.length
        ? answer.items.map(row)
        : [el('tr', { class: 'empty' }, el('td', { colspan: COLUMNS, class: 'muted', text: `No meeting holds “${q}”.` }))]),
    );
    labelCells(table);
    note.textContent = answer.more ? 'More meetings hold this text than are listed: narrow it (an id, an email).' : '';
    table.dataset.q = q;
  }

  let timer;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void load(), SEARCH_DELAY_MS);
  });
  byId('meeting-search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(timer);
    void load();
  });

  return { load, focus: () => search.focus() };
}
