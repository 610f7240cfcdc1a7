import { actionBox } from './delivery-action.js';
import { attempt, byId, deliveryNo, el, fields, formatTime, pretty, showStatus, stateBadge } from './dom.js';
import { whyThisRecord } from './match-view.js';

const REPLAYABLE = new Set(['dead', 'succeeded', 'cancelled', 'skipped']);
const FINAL = new Set(['succeeded', 'dead', 'skipped', 'cancelled', 'superseded']);
const POLL_MS = 1000;
// A delivery still open after a minute is waiting (on the rate limit, a retry): asked after less often.
const SLOW_POLL_MS = 5000;
const SLOW_AFTER_POLLS = 60;

/** What reading Momentum back found (GET /admin/deliveries/:id `readback`): "accepted but not applied" with the ids it holds. */
function readbackText(readback) {
  if (!readback) return '—';
  if (readback.state === 'pending') return `pending (due ${formatTime(readback.dueAt)})`;
  if (readback.state !== 'not_applied') return readback.state;
  const held = readback.held ?? {};
  const ids = [held.opportunityId, held.accountId].filter(Boolean).join(', ') || 'no ids';
  return `${readback.flag}: Momentum holds ${ids} (meeting ${held.momentumMeetingId})`;
}

/**
 * One delivery: its request, flags, where it came from (delivery-origin.js), every attempt, what
 * superseded it and its replays, with Replay and Cancel. While it is pending or running the panel
 * refreshes itself, so an operator sees a replay go through.
 */
export function createDeliveryDetail({ api, onChanged, onToggled = () => {}, openEvent, openMeeting, openImport, orgLinks, origin }) {
  const panel = byId('delivery-detail');
  let shownId = null;
  let timer;
  let polls = 0;
  // Escape closes the page from anywhere inside it, as its Close button does.
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') hide({ restoreFocus: true });
  });

  const link = (label, id, open) => el('button', { type: 'button', class: 'link', dataset: { id }, onclick: () => open(id), text: label });
  const deliveryLink = (summary) => link(`${deliveryNo(summary)} (${summary.state})`, summary.id, show);

  const attemptsTable = (attempts) =>
    attempts.length === 0
      ? el('p', { class: 'muted', text: 'No attempt yet.' })
      : el(
          'div',
          { class: 'table-scroll' },
          el(
            'table',
            { class: 'attempts' },
            el(
              'thead',
              {},
              el(
                'tr',
                {},
                ['Started', 'ms', 'Status', 'Class', 'Error', 'Request id'].map((title) => el('th', { text: title })),
              ),
            ),
            el(
              'tbody',
              {},
              attempts.map((row) =>
                el(
                  'tr',
                  {},
                  [formatTime(row.startedAt), row.durationMs, row.status ?? '—', row.errorClass ?? '—', row.error ?? '', row.upstreamRequestId ?? '—'].map(
                    (cell) => el('td', { class: 'clip', title: String(cell), text: cell }),
                  ),
                ),
              ),
            ),
          ),
        );

  function render(detail) {
    const { delivery } = detail;
    const replay = el(
      'button',
      { type: 'button', id: 'detail-replay', disabled: !REPLAYABLE.has(delivery.state), onclick: () => act('replay', delivery.id) },
      'Replay',
    );
    const cancel = el(
      'button',
      { type: 'button', id: 'detail-cancel', class: 'danger', disabled: delivery.state !== 'pending', onclick: () => act('cancel', delivery.id) },
      'Cancel',
    );
    const originHolder = el('div', { class: 'origin', dataset: { field: 'origin' } });
    const children = [
      el(
        'div',
        { class: 'detail-head' },
        // Headed by what the operator knows it by, the meeting; its number says which delivery of it.
        el('h2', { tabindex: -1, dataset: { field: 'heading' } }, detail.meetingTitle ?? `Delivery ${deliveryNo(delivery)}`),
        el('button', { type: 'button', id: 'detail-close', class: 'secondary', onclick: () => hide({ restoreFocus: true }), text: 'Close' }),
      ),
      el(
        'p',
        { class: 'delivery-line' },
        el('span', { dataset: { field: 'number' }, text: `Delivery ${deliveryNo(delivery)} · ${delivery.kind} ` }),
        stateBadge(delivery.state),
        detail.meetingKey
          ? [
              ' · ',
              el('button', {
                type: 'button',
                class: 'link',
                dataset: { field: 'meeting-page' },
                onclick: () => openMeeting(detail.meetingKey),
                text: "the meeting's page",
              }),
            ]
          : '',
      ),
      actionBox(detail.action, { onReplay: () => act('replay', delivery.id), onImport: () => openImport(delivery.request) }),
      el('div', { class: 'actions' }, replay, cancel),
      fields([
        ['Kind', delivery.kind],
        ['Meeting', delivery.meeting],
        ['Attempts', String(delivery.attempts)],
        ['Created', formatTime(delivery.createdAt)],
        ['Next run', FINAL.has(delivery.state) ? '—' : formatTime(delivery.runAt)],
        ['Last error', delivery.lastError],
        ['Flags', delivery.flags ? `triggerSummary=${delivery.flags.triggerSummary}, triggerAiSignals=${delivery.flags.triggerAiSignals}` : '—'],
        ['Replay', delivery.replay ? 'yes (always sent)' : 'no'],
        ['Read back', readbackText(detail.readback)],
        ['Superseded by', detail.supersededBy ? deliveryLink(detail.supersededBy) : '—'],
        ['Replay of', detail.replayOf ? deliveryLink(detail.replayOf) : '—'],
        [
          'Replays',
          detail.replays.length
            ? el(
                'span',
                {},
                detail.replays.map((item) => [deliveryLink(item), ' ']),
              )
            : '—',
        ],
      ]),
      el('h3', { text: 'Where it came from' }),
      originHolder,
      whyThisRecord(detail.match, {
        orgLinks,
        extra: detail.match
          ? el(
              'p',
              {},
              el('button', {
                type: 'button',
                class: 'link',
                dataset: { field: 'meeting-link' },
                onclick: () => openMeeting(detail.match.meetingKey),
                text: `Open the meeting's page (${detail.match.meetingKey})`,
              }),
            )
          : null,
      }),
      el('h3', { text: 'Attempts' }),
      attemptsTable(detail.attempts),
      el('h3', { text: 'Request' }),
      el('pre', { dataset: { field: 'request' }, text: pretty(delivery.request) }),
      delivery.result === null || delivery.result === undefined ? [] : [el('h3', { text: 'Result' }), el('pre', { text: pretty(delivery.result) })],
    ];
    panel.replaceChildren(...children.flat().filter((child) => child !== null));
    panel.dataset.id = String(delivery.id);
    panel.dataset.number = String(delivery.number ?? '');
    panel.dataset.state = delivery.state;
    const opened = panel.hidden;
    panel.hidden = false;
    // Beside the list, which drops its low-value columns meanwhile (console.css).
    panel.parentElement?.classList.add('with-detail');
    if (opened) onToggled();
    void origin.fill(originHolder, detail, openEvent);
  }

  /**
   * `watching`: it was just changed or is being polled, so its end must refresh the stats and the table.
   * `reveal`: an operator opened it; on a narrow screen the panel sits below the table, so it is
   * scrolled to, and its heading takes the focus so the keyboard continues there.
   */
  async function show(id, { watching = false, reveal = false } = {}) {
    clearTimeout(timer);
    if (shownId !== id || !watching) polls = 0;
    shownId = id;
    // A hidden tab asks for nothing: the next poll comes when it is shown again.
    if (watching && document.hidden) return pollAgain(id);
    const detail = await attempt(() => api.get(`deliveries/${id}`));
    if (shownId !== id) return;
    // A failed read (the network, a restart) is tried again, more slowly, while the delivery stays open.
    if (detail === undefined) return watching ? pollAgain(id, SLOW_POLL_MS) : undefined;
    render(detail);
    if (reveal) {
      const heading = panel.querySelector('h2');
      heading?.focus({ preventScroll: true });
      panel.scrollIntoView({ block: 'nearest' });
    }
    const ended = FINAL.has(detail.delivery.state);
    if (!ended) pollAgain(id);
    // It ended while watched: the stats and the table still show it pending or running.
    else if (watching) await onChanged();
  }

  function pollAgain(id, ms = polls >= SLOW_AFTER_POLLS ? SLOW_POLL_MS : POLL_MS) {
    polls += 1;
    timer = setTimeout(() => void show(id, { watching: true }), ms);
  }

  async function act(action, id) {
    const answer = await attempt(() => api.post(`deliveries/${id}/${action}`));
    if (answer === undefined) return;
    const { delivery } = answer;
    // The page shows the delivery acted on, so it names its number.
    const acted = panel.dataset.id === String(id) && panel.dataset.number ? `delivery #${panel.dataset.number}` : 'the delivery';
    showStatus(action === 'replay' ? `Replay ${deliveryNo(delivery)} of ${acted} queued.` : `${acted[0].toUpperCase()}${acted.slice(1)} cancelled.`);
    await onChanged();
    await show(delivery.id, { watching: true });
  }

  /** `restoreFocus`: the operator closed it; the focus goes back to its row in the list, or the list. */
  function hide({ restoreFocus = false } = {}) {
    clearTimeout(timer);
    const id = shownId;
    shownId = null;
    const wasOpen = !panel.hidden;
    panel.hidden = true;
    panel.parentElement?.classList.remove('with-detail');
    if (restoreFocus) {
      const row = document.querySelector(`#deliveries-table tr[data-id="${id}"] button`);
      /** @type {HTMLElement | null} */ (row)?.focus();
    }
    if (wasOpen) onToggled();
  }

  return { show, hide, shownId: () => shownId };
}
