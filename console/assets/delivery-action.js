import { el } from './dom.js';

const BUTTON_LABELS = { replay: 'Replay it', import: 'Import the meeting…' };

/**
 * What to do about a dead delivery (GET /admin/deliveries/:id `action`): the API's advice for the
 * class of its last failure, and the one button that helps: replay it, or import the meeting
 * (the import form, filled from the request). `none`: the advice says what to fix first.
 */
export function actionBox(action, { onReplay, onImport }) {
  if (!action) return null;
  const button =
    action.button === 'none'
      ? null
      : el('button', {
          type: 'button',
          id: 'detail-action',
          dataset: { button: action.button },
          onclick: action.button === 'replay' ? onReplay : onImport,
          text: BUTTON_LABELS[action.button],
        });
  return el(
    'div',
    { class: 'action-box', role: 'note', dataset: { field: 'action', class: action.class } },
    el('p', {}, el('strong', { text: `What to do${action.status ? ` (Momentum answered ${action.status})` : ''}: ` }), action.advice),
    button,
  );
}
