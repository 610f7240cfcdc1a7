import { attempt, byId, el, formatAge, formatTime } from './dom.js';

const DELIVERY_KINDS = new Set(['remap', 'import']);
const SHOWN_STATES = ['pending', 'running', 'succeeded', 'dead', 'skipped', 'superseded', 'cancelled'];

const card = (label, value, name, extra) =>
  el('div', { class: `card ${extra ?? ''}`, dataset: { stat: name } }, el('div', { class: 'value', text: value }), el('div', { class: 'label', text: label }));

/**
 * The stats strip at the top: deliveries by state, dead in 24 h, oldest pending. Every refresh
 * hands the whole answer to `onStats` too (the quota panel reads Momentum's budget from it).
 */
export function createStats(api, { onStats = (_stats) => {} } = {}) {
  const cards = byId('stats-cards');
  const note = byId('stats-note');

  async function refresh() {
    const stats = await attempt(() => api.get('stats'));
    if (stats === undefined) return;
    const byState = new Map();
    for (const { kind, state, count } of stats.counts) {
      if (DELIVERY_KINDS.has(kind)) byState.set(state, (byState.get(state) ?? 0) + count);
    }
    const dead24h = stats.deadLast24h.filter((entry) => DELIVERY_KINDS.has(entry.kind)).reduce((sum, entry) => sum + entry.count, 0);
    const oldest = stats.oldestPending.filter((entry) => DELIVERY_KINDS.has(entry.kind)).reduce((max, entry) => Math.max(max, entry.ageMs), -1);
    cards.replaceChildren(
      ...SHOWN_STATES.map((state) => card(state, String(byState.get(state) ?? 0), state, state === 'dead' ? 'dead' : '')),
      card('dead in 24 h', String(dead24h), 'dead24h', dead24h > 0 ? 'dead' : ''),
      card('oldest pending', oldest < 0 ? '—' : formatAge(oldest), 'oldestPending'),
    );
    const mapping = stats.counts.filter((entry) => !DELIVERY_KINDS.has(entry.kind)).map((entry) => `${entry.kind} ${entry.state}: ${entry.count}`);
    note.textContent = `Deliveries (remap + import) as of ${formatTime(stats.at)}${mapping.length ? ` · other jobs: ${mapping.join(', ')}` : ''}`;
    onStats(stats);
  }

  return { refresh };
}
