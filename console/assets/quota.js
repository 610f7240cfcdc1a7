import { byId, el, fields, formatAge, formatTime } from './dom.js';

/** A window length as MOMENTUM_RATE_LIMIT writes it: 15 min, 1 h, 90 s. */
export function formatWindow(seconds) {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/**
 * Older bridges send only `rateLimit` (the bucket) in the stats; read it as a quota without the
 * backlog, so the panel still says what it can.
 */
function quotaOf(stats) {
  if (stats.quota !== undefined) return stats.quota;
  const bucket = stats.rateLimit;
  if (bucket === null || bucket === undefined) return { off: true };
  return {
    limit: bucket.capacity,
    windowSeconds: Math.round(bucket.windowMs / 1000),
    usedInWindow: bucket.used,
    remaining: Math.floor(bucket.tokens),
    nextSlotAt: bucket.nextFreeAt,
    blockedUntil: bucket.blockedUntil,
    backlog: null,
    etaSeconds: null,
  };
}

/** When the next call may go, as an operator reads it: "now" once that moment has passed. */
const nextSlot = (iso, now) => (!iso || new Date(iso).getTime() <= now ? 'now' : `${formatTime(iso)} (in ${formatAge(new Date(iso).getTime() - now)})`);

function eta(quota) {
  if (quota.backlog === null || quota.backlog === undefined) return '—';
  if (quota.backlog === 0) return 'nothing waiting';
  return quota.etaSeconds === null || quota.etaSeconds === undefined ? 'unknown' : `about ${formatAge(quota.etaSeconds * 1000)}`;
}

/**
 * Momentum's budget: calls used in the sliding window as a meter, the next free slot, the backlog
 * and when it should be through, and a 429 block while Momentum has paused the bridge.
 */
export function createQuota() {
  const panel = byId('quota-panel');
  const body = byId('quota-body');

  function render(stats) {
    const quota = quotaOf(stats);
    if (quota.off) {
      panel.dataset.state = 'off';
      delete panel.dataset.limit;
      body.replaceChildren(
        el('p', { class: 'quota-off', dataset: { field: 'pacing' }, text: 'Pacing off' }),
        el('p', { class: 'muted', text: 'MOMENTUM_RATE_LIMIT is off: deliveries go to Momentum as fast as the worker runs them.' }),
      );
      return;
    }
    const now = Date.now();
    const blocked = quota.blockedUntil && new Date(quota.blockedUntil).getTime() > now;
    panel.dataset.state = blocked ? 'blocked' : 'paced';
    panel.dataset.limit = String(quota.limit);
    const window = formatWindow(quota.windowSeconds);
    const used = Math.min(quota.usedInWindow, quota.limit);
    body.replaceChildren(
      ...[
        blocked
          ? el(
              'p',
              { class: 'alert', role: 'alert', id: 'quota-blocked' },
              el('strong', { text: 'Momentum answered 429. ' }),
              `No call goes until ${formatTime(quota.blockedUntil)} (in ${formatAge(new Date(quota.blockedUntil).getTime() - now)}).`,
            )
          : null,
        el(
          'label',
          { for: 'quota-meter', class: 'meter-label' },
          `Calls in the last ${window}: `,
          el('strong', { dataset: { field: 'used' }, text: `${quota.usedInWindow} of ${quota.limit}` }),
        ),
        el('meter', {
          id: 'quota-meter',
          min: 0,
          max: quota.limit,
          low: Math.max(1, Math.floor(quota.limit * 0.7)),
          high: Math.max(1, Math.floor(quota.limit * 0.9)),
          optimum: 0,
          value: used,
          text: `${quota.usedInWindow} of ${quota.limit}`,
        }),
        fields([
          ['Limit', el('span', { dataset: { field: 'limit' }, text: `${quota.limit} per ${window}` })],
          ['Free now', String(quota.remaining)],
          ['Next free slot', blocked ? `after the block, ${formatTime(quota.blockedUntil)}` : nextSlot(quota.nextSlotAt, now)],
          ['Backlog', quota.backlog === null || quota.backlog === undefined ? '—' : `${quota.backlog} waiting`],
          ['Through in', eta(quota)],
        ]),
      ].filter((node) => node !== null),
    );
  }

  return { render };
}
