import { ApiError } from './api.js';
import { el, showStatus } from './dom.js';

const FIELD = { opportunity: 'opportunityId', account: 'accountId', lead: 'leadId' };
const REASON_MAX = 500;

/** The path of a meeting's page or pin: its key is URL-encoded (it holds colons, and may hold slashes). */
export const meetingPath = (key) => `meetings/${encodeURIComponent(key)}`;

/**
 * One candidate's Pin control: a button that opens a small form asking for the reason, then pins
 * the candidate for the meeting (PUT /admin/meetings/:key/pin). The answer's pin and re-mapping job
 * go to `onPinned`; a refusal is shown beside the field.
 */
export function createPinControls({ api, onPinned }) {
  let serial = 0;
  return (meetingKey, candidate) => {
    const field = FIELD[candidate.kind];
    if (field === undefined) return el('span', { class: 'muted', text: '—' });
    const id = `pin-reason-${(serial += 1)}`;
    const input = el('input', { id, type: 'text', maxlength: REASON_MAX, required: true, autocomplete: 'off', size: 24 });
    const error = el('p', { class: 'field-error', role: 'alert' });
    const form = el(
      'form',
      { class: 'pin-form', hidden: true, novalidate: true },
      el('label', { for: id, text: `Why ${candidate.id}?` }),
      input,
      error,
      el(
        'div',
        { class: 'actions' },
        el('button', { type: 'submit', class: 'pin-confirm', text: 'Pin' }),
        el('button', { type: 'button', class: 'secondary', onclick: () => close(), text: 'Cancel' }),
      ),
    );
    const open = el('button', {
      type: 'button',
      class: 'secondary pin-open',
      'aria-label': `Pin ${candidate.id}`,
      onclick: () => {
        open.hidden = true;
        form.hidden = false;
        input.focus();
      },
      text: 'Pin…',
    });
    const close = () => {
      form.hidden = true;
      open.hidden = false;
      error.textContent = '';
    };
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const reason = input.value.trim();
      if (reason === '') {
        error.textContent = 'Say why this record: the reason is kept with the pin.';
        input.focus();
        return;
      }
      try {
        const answer = await api.put(`${meetingPath(meetingKey)}/pin`, { [field]: candidate.id, reason });
        close();
        showStatus(`Pinned ${candidate.id} for ${meetingKey}; mapping job #${answer.job.id} queued.`);
        await onPinned(meetingKey, answer);
      } catch (failure) {
        const issue = failure instanceof ApiError && Array.isArray(failure.details) ? failure.details[0]?.message : undefined;
        error.textContent = issue ?? (failure instanceof Error ? failure.message : String(failure));
      }
    });
    return el('div', { class: 'pin-control' }, open, form);
  };
}

const FINAL = new Set(['succeeded', 'dead', 'skipped', 'cancelled', 'superseded']);

/**
 * Reads the meeting until the mapping a pin (or its clearing) queued has run and its delivery has
 * ended: the newest match record is newer than `afterMatchId` and the newest delivery is final.
 * Resolves with the meeting as read last, and whether that happened within `tries` seconds.
 */
export async function awaitRemap(api, meetingKey, afterMatchId, { tries = 20, everyMs = 1000 } = {}) {
  let meeting;
  for (let attempt = 0; attempt < tries; attempt += 1) {
    meeting = await api.get(meetingPath(meetingKey));
    const [match] = meeting.matches;
    const [delivery] = meeting.deliveries;
    if (match && match.id > afterMatchId && (!delivery || FINAL.has(delivery.state))) return { meeting, done: true };
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return { meeting, done: false };
}

/** The sentence that confirms a re-mapping to the operator. */
export function remapSentence({ meeting, done }) {
  const [match] = meeting?.matches ?? [];
  const [delivery] = meeting?.deliveries ?? [];
  if (!done || !match) return 'Still mapping: refresh in a moment.';
  const sent = delivery ? ` Delivery #${delivery.number ?? delivery.id} ${delivery.state}.` : '';
  return `Confirmed: ${match.summary}.${sent}`;
}
