import { attempt, byId, el, fields, formatTime, showStatus } from './dom.js';
import { whyThisRecord } from './match-view.js';
import { meetingTimeline } from './meeting-timeline.js';
import { awaitRemap, createPinControls, meetingPath, remapSentence } from './pin-form.js';

/**
 * One meeting's page, headed by its title and time: its pin (with Clear pin), every source of the
 * meeting (a calendar event, a Salesforce Event, a recording of the same call; each opens its own
 * page), why its newest match chose what it chose (each candidate can be pinned from there), every
 * match record, and the timeline of all it left behind (meeting-timeline.js).
 */
export function createMeeting({ api, orgLinks, openDelivery, openEvent, onChanged }) {
  const panel = byId('meeting-detail');
  let shownKey = null;

  const pinControls = createPinControls({ api, onPinned: (key, answer) => confirm(key, answer.pin ? 'pinned' : 'cleared') });

  const link = (text, onclick) => el('button', { type: 'button', class: 'link', onclick, text });

  const history = (matches) =>
    el(
      'div',
      { class: 'table-scroll' },
      el(
        'table',
        { class: 'compact match-history', dataset: { field: 'matches' } },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Decided', 'Outcome', 'Rule', 'Summary', 'Event'].map((title) => el('th', { scope: 'col', text: title })),
          ),
        ),
        el(
          'tbody',
          {},
          matches.map((match) =>
            el(
              'tr',
              { dataset: { id: match.id } },
              el('td', { text: formatTime(match.createdAt) }),
              el('td', {}, el('span', { class: `candidate candidate-${match.outcome}`, text: match.outcome })),
              el('td', {}, el('code', { text: match.rule })),
              el('td', { class: 'why', text: match.summary }),
              el(
                'td',
                {},
                link(`#${match.eventId}`, () => openEvent(match.eventId)),
              ),
            ),
          ),
        ),
      ),
    );

  const pinField = (meeting) =>
    meeting.pin
      ? el(
          'span',
          { dataset: { field: 'meeting-pin' } },
          `${Object.values(meeting.pin.records).join(', ')} by ${meeting.pin.pinnedBy}, ${formatTime(meeting.pin.pinnedAt)}: ${meeting.pin.reason} `,
          el('button', { type: 'button', id: 'meeting-unpin', class: 'danger', onclick: () => void unpin(meeting) }, 'Clear pin'),
        )
      : el('span', { class: 'muted', dataset: { field: 'meeting-pin' }, text: 'none: the rules decide' });

  /** Every source record of the meeting this key is part of: the others open their own page. */
  const sourceList = (meeting) =>
    meeting.sources.length
      ? el(
          'ul',
          { dataset: { field: 'sources' } },
          meeting.sources.map((source) =>
            el(
              'li',
              { dataset: { key: source.meetingKey } },
              source.meetingKey === meeting.meetingKey
                ? el('strong', { text: `${source.source} (this page)` })
                : link(source.source, () => void show(source.meetingKey, { reveal: true })),
              ` ${source.title ?? ''} ${source.start ? formatTime(source.start) : ''}`,
              source.cancelled ? el('span', { class: 'state state-cancelled', text: 'cancelled' }) : '',
              source.importedId ? ` imported as ${source.importedId}` : '',
              ' ',
              el('code', { text: source.meetingKey }),
            ),
          ),
        )
      : el('p', { class: 'muted', dataset: { field: 'sources' }, text: 'Not mapped yet: its meeting is known once it is.' });

  function render(meeting) {
    const key = meeting.meetingKey;
    panel.replaceChildren(
      el('h2', { id: 'meeting-heading', tabindex: -1 }, meeting.title ?? key),
      el('p', { class: 'meeting-when muted', dataset: { field: 'meeting-start' }, text: meeting.start ? formatTime(meeting.start) : 'Start not known' }),
      fields([
        ['Key', el('code', { text: key })],
        ['Meeting', meeting.meetingId ? el('code', { dataset: { field: 'meeting-id' }, text: `#${meeting.meetingId}` }) : '—'],
        ['Pin', pinField(meeting)],
      ]),
      el('p', { class: 'status confirm', role: 'status', dataset: { field: 'confirm' } }),
      el('h3', { text: 'Sources of this meeting' }),
      sourceList(meeting),
      whyThisRecord(meeting.matches[0], { orgLinks, pinControl: (candidate) => pinControls(key, candidate) }),
      el('h3', { text: 'Every match record' }),
      meeting.matches.length ? history(meeting.matches) : el('p', { class: 'muted', text: 'None yet.' }),
      el('h3', { text: 'Timeline, newest first' }),
      meeting.timelineFrom
        ? el('p', { class: 'muted small', dataset: { field: 'timeline-from' }, text: `From ${formatTime(meeting.timelineFrom)}: older entries are left out.` })
        : '',
      meetingTimeline(meeting.timeline ?? [], { openDelivery, openEvent }),
    );
    panel.dataset.key = key;
    panel.hidden = false;
  }

  async function show(key, { reveal = false } = {}) {
    shownKey = key;
    const meeting = await attempt(() => api.get(meetingPath(key)));
    if (meeting === undefined || shownKey !== key) return undefined;
    render(meeting);
    if (reveal) panel.querySelector('h2')?.focus();
    return meeting;
  }

  /** After a pin or its clearing: wait for the re-mapping, show the meeting as it now is, and say so. */
  async function confirm(key, what) {
    const before = panel.dataset.key === key ? Number(panel.querySelector('[data-field="matches"] tbody tr')?.getAttribute('data-id') ?? 0) : 0;
    const result = await awaitRemap(api, key, before);
    if (shownKey !== key || !result.meeting) return;
    render(result.meeting);
    const line = panel.querySelector('[data-field="confirm"]');
    line.textContent = `${what === 'pinned' ? 'Pinned' : 'Pin cleared'}. ${remapSentence(result)}`;
    line.setAttribute('data-confirmed', String(result.done));
    await onChanged();
  }

  async function unpin(meeting) {
    const cleared = await attempt(() => api.del(`${meetingPath(meeting.meetingKey)}/pin`));
    if (cleared === undefined) return;
    showStatus(`Pin of ${meeting.meetingKey} cleared; the meeting is mapped again by the rules.`);
    await confirm(meeting.meetingKey, 'cleared');
  }

  return { show, hide: () => ((panel.hidden = true), (shownKey = null)) };
}
