import { attempt, byId, el, fields, formatTime } from './dom.js';
import { createTaggedReads } from './live.js';
import { candidateTable } from './match-view.js';
import { createPager } from './pager.js';
import { awaitRemap, createPinControls, remapSentence } from './pin-form.js';

const PAGE_SIZE = 10;

/**
 * The ambiguous queue (GET /admin/matches?outcome=ambiguous): meetings whose newest match is a tie
 * the rules would not guess, each with its candidates. Pinning one asks for a reason, re-maps the
 * meeting at once and confirms here once the re-mapping has run and its delivery has ended.
 */
export function createAmbiguous({ api, orgLinks, openMeeting, onChanged }) {
  const list = byId('ambiguous-list');
  const pager = createPager('ambiguous', () => load());
  const read = createTaggedReads(api);

  const pinControls = createPinControls({
    api,
    async onPinned(key) {
      const card = [...list.querySelectorAll('article.queue-item')].find((node) => node.getAttribute('data-key') === key);
      const line = card?.querySelector('[data-field="confirm"]');
      if (line) line.textContent = 'Pinned; re-mapping the meeting…';
      const result = await awaitRemap(api, key, Number(card?.getAttribute('data-match') ?? 0));
      if (!line) return;
      line.textContent = remapSentence(result);
      line.setAttribute('data-confirmed', String(result.done));
      card.classList.add('pinned');
      // The new delivery shows in the counts and the deliveries table.
      await onChanged();
    },
  });

  const card = (item) =>
    el(
      'article',
      { class: 'panel queue-item', dataset: { key: item.meetingKey, match: item.id } },
      el('h3', {}, item.title ?? item.meetingKey),
      fields([
        ['Start', item.start ? formatTime(item.start) : '—'],
        ['Meeting', el('button', { type: 'button', class: 'link', onclick: () => openMeeting(item.meetingKey), text: item.meetingKey })],
        ['Decided', formatTime(item.createdAt)],
        ...(item.policy ? [['Policy', el('span', {}, el('code', { text: item.policy.name }), `: ${item.policy.applied}`)]] : []),
      ]),
      el('p', { class: 'summary match-summary', dataset: { field: 'match-summary' }, text: item.summary }),
      candidateTable(item.candidates, { orgLinks, pinControl: (candidate) => pinControls(item.meetingKey, candidate) }),
      el('p', { class: 'status confirm', role: 'status', dataset: { field: 'confirm' } }),
    );

  /** `live`: a quiet refresh (live.js) that renders only a changed page. */
  async function load({ live = false } = {}) {
    const answer = await attempt(() => read('matches', { outcome: 'ambiguous', limit: PAGE_SIZE, cursor: pager.cursor() }, { live }));
    if (answer === undefined || !answer.changed) return;
    const page = answer.payload;
    list.replaceChildren(
      ...(page.items.length ? page.items.map(card) : [el('p', { class: 'muted', text: 'No ambiguous meeting: every match found one record, or was pinned.' })]),
    );
    list.dataset.loaded = String(page.items.length);
    pager.loaded(page.nextCursor);
  }

  byId('ambiguous-refresh').addEventListener('click', () => {
    pager.reset();
    void load();
  });
  // A pin being written or just confirmed is the operator's work: the queue holds still under it.
  const reading = () => (list.querySelector('.pin-form:not([hidden]), [data-field="confirm"]:not(:empty)') ? 'pinning' : null);
  return { load, reading };
}
