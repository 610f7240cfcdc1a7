import { ApiError } from './api.js';
import { attempt, byId, el, formatTime, labelCells } from './dom.js';
import { createTaggedReads } from './live.js';

const PROVIDER_NAMES = { google: 'Google', microsoft: 'Microsoft 365' };

/** The channel or subscription's state as an operator reads it: live (until when), expired, or missing. */
function watchState(item) {
  if (!item.watching) return { text: 'stopped', state: 'cancelled' };
  if (item.channel === null) return { text: item.lastError ? 'failing' : 'opening', state: item.lastError ? 'dead' : 'pending' };
  return new Date(item.channel.expiration).getTime() > Date.now() ? { text: 'live', state: 'succeeded' } : { text: 'expired', state: 'dead' };
}

/**
 * Watched calendars: each Google calendar and Microsoft 365 mailbox with its push channel or Graph
 * subscription, when it expires, the last sync and the last error. Served only when a calendar
 * provider is configured; otherwise the view says so.
 */
export function createCalendars({ api }) {
  const table = byId('calendars-table');
  const body = table.querySelector('tbody');
  const note = byId('calendars-note');
  const read = createTaggedReads(api);

  const row = (item) => {
    const state = watchState(item);
    return el(
      'tr',
      { dataset: { provider: item.provider, calendar: item.calendarId } },
      el('td', { text: PROVIDER_NAMES[item.provider] ?? item.provider }),
      el('td', { class: 'clip', title: item.calendarId, text: item.calendarId }),
      el('td', {}, el('span', { class: `state state-${state.state}`, dataset: { field: 'watch-state' }, text: state.text })),
      el('td', { text: item.channel ? formatTime(item.channel.expiration) : '—' }),
      el('td', { dataset: { field: 'last-sync' }, text: formatTime(item.lastSyncAt) }),
      el('td', { class: 'clip', title: item.lastError ?? '', dataset: { field: 'last-error' }, text: item.lastError ?? '' }),
    );
  };

  /** `live`: a quiet refresh (live.js) that renders only a changed answer. */
  async function load({ live = false } = {}) {
    // The routes exist only when a provider is configured: a 404 means none is.
    const read404 = await attempt(() =>
      read('calendars', {}, { live }).catch((error) =>
        error instanceof ApiError && error.status === 404 ? { changed: true, payload: null } : Promise.reject(error),
      ),
    );
    if (read404 === undefined || !read404.changed) return;
    const answer = read404.payload;
    if (answer === null) {
      note.textContent = 'No calendar provider is configured on this bridge (Google or Microsoft 365).';
      body.replaceChildren();
      return;
    }
    note.textContent = '';
    body.replaceChildren(
      ...(answer.calendars.length
        ? answer.calendars.map(row)
        : [el('tr', { class: 'empty' }, el('td', { colspan: 6, class: 'muted', text: 'No calendar is watched yet.' }))]),
    );
    labelCells(table);
  }

  byId('calendars-refresh').addEventListener('click', () => void load());
  return { load };
}
