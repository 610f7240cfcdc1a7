import { el, formatTime, stateBadge } from './dom.js';

const TYPE_LABELS = { event: 'Event', match: 'Match', delivery: 'Delivery', replay: 'Replay', attempt: 'Attempt', pin: 'Pin' };

const numberOf = (entry) => (entry.number === null ? `job ${entry.deliveryId}` : `#${entry.number}`);

/**
 * A meeting's timeline (GET /admin/meetings/:key `timeline`), newest first as the API orders it:
 * each inbound event with its state and why, each match record, each delivery and replay by its
 * number and state, each attempt, and the pin. Events and deliveries open their own pages.
 */
export function meetingTimeline(entries, { openDelivery, openEvent }) {
  if (entries.length === 0) return el('p', { class: 'muted', dataset: { field: 'timeline' }, text: 'Nothing on record yet.' });
  const numbers = new Map(entries.filter((entry) => 'deliveryId' in entry).map((entry) => [entry.deliveryId, numberOf(entry)]));
  const link = (text, onclick, field) => el('button', { type: 'button', class: 'link', dataset: { field }, onclick, text });
  const eventLink = (id) => link(`event #${id}`, () => openEvent(id), 'event-link');
  const deliveryLink = (id, text) => link(text, () => openDelivery(id), 'delivery-link');

  const what = {
    event: (entry) => [
      eventLink(entry.eventId),
      ` ${entry.source} `,
      stateBadge(entry.state),
      entry.title ? ` ${entry.title}` : '',
      entry.reason ? el('span', { class: 'muted small block', dataset: { field: 'reason' }, text: entry.reason }) : '',
    ],
    match: (entry) => [
      el('span', { class: `candidate candidate-${entry.outcome}`, text: entry.outcome }),
      ' ',
      el('code', { text: entry.rule }),
      ` ${entry.summary} (from `,
      eventLink(entry.eventId),
      ')',
    ],
    delivery: (entry) => [
      deliveryLink(entry.deliveryId, `${numberOf(entry)} ${entry.kind}`),
      ' ',
      stateBadge(entry.state),
      entry.lastError ? el('span', { class: 'muted small block', text: entry.lastError }) : '',
    ],
    replay: (entry) => [...what.delivery(entry), ` replays ${numbers.get(entry.replayOf) ?? 'an earlier delivery'}`],
    attempt: (entry) => [
      `on `,
      deliveryLink(entry.deliveryId, numberOf(entry)),
      `: ${entry.status ?? entry.errorClass ?? 'no answer'}`,
      entry.error ? ` ${entry.error}` : '',
      el('span', { class: 'muted', text: ` (${entry.durationMs} ms)` }),
    ],
    pin: (entry) => [`${Object.values(entry.records).join(', ')} pinned by ${entry.pinnedBy}: ${entry.reason}`],
  };

  return el(
    'ol',
    { class: 'timeline', dataset: { field: 'timeline' } },
    entries.map((entry) =>
      el(
        'li',
        { dataset: { type: entry.type } },
        el('time', { datetime: entry.at, text: formatTime(entry.at) }),
        el('span', { class: 'type', text: TYPE_LABELS[entry.type] ?? entry.type }),
        el('span', { class: 'what' }, what[entry.type]?.(entry) ?? ''),
      ),
    ),
  );
}
