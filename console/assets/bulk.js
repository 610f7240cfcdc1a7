import { attempt, byId, deliveryNo, el, showStatus } from './dom.js';

/**
 * Bulk replay of dead deliveries: a dry run first shows how many would go (and a sample); only the
 * confirm button enqueues them, so a mistyped filter never replays more than the operator saw.
 */
export function createBulkReplay({ api, onChanged }) {
  const panel = byId('bulk-panel');
  const summary = byId('bulk-summary');
  const sample = byId('bulk-sample');
  const confirm = /** @type {HTMLButtonElement} */ (byId('bulk-confirm'));
  const filter = { state: 'dead' };

  async function dryRun() {
    const answer = await attempt(() => api.post('deliveries/replay', { filter, dryRun: true }));
    if (answer === undefined) return;
    const capped = answer.capped ? ` (${answer.matched} match; at most ${answer.replayed} per run)` : '';
    summary.textContent = answer.replayed === 0 ? 'No dead deliveries to replay.' : `${answer.replayed} dead deliveries would be replayed${capped}.`;
    summary.dataset.count = String(answer.replayed);
    sample.replaceChildren(
      ...answer.sample.map((item) => el('li', { text: `${deliveryNo(item)} ${item.kind} ${item.meeting ?? ''} — ${item.lastError ?? ''}` })),
    );
    confirm.textContent = `Replay ${answer.replayed}`;
    confirm.disabled = answer.replayed === 0;
    confirm.hidden = false;
    panel.hidden = false;
  }

  async function run() {
    confirm.disabled = true;
    const answer = await attempt(() => api.post('deliveries/replay', { filter, dryRun: false }));
    if (answer === undefined) return;
    summary.textContent = `${answer.replayed} replays queued.`;
    summary.dataset.count = String(answer.replayed);
    confirm.hidden = true;
    showStatus(`${answer.replayed} dead deliveries replayed.`);
    await onChanged();
  }

  byId('bulk-open').addEventListener('click', () => void dryRun());
  confirm.addEventListener('click', () => void run());
  byId('bulk-dismiss').addEventListener('click', () => {
    panel.hidden = true;
  });
}
