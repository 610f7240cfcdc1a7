import { ApiError } from './api.js';
import { attempt, byId, el, fields, formatAge, formatTime } from './dom.js';
import { pubsubSection } from './pubsub-health.js';

const PHONE = '(max-width: 600px)';
const STATE_CLASS = { on: 'state-succeeded', off: 'state-skipped', failing: 'state-dead' };

/** "3 min ago" from an ISO time; the exact time is the element's title. */
const ago = (iso) => el('time', { datetime: iso, title: formatTime(iso), text: `${formatAge(Date.now() - new Date(iso).getTime())} ago` });

/** The one-line answer to "is it healthy?": the word, then the integrations by state (none of a state: not said, but "on"). */
export function healthSummary(health) {
  const count = (state) => health.integrations.filter((entry) => entry.state === state).length;
  const word = !health.ready ? 'Not ready' : count('failing') > 0 ? 'Degraded' : 'Healthy';
  const parts = [word, `${count('on')} on`];
  if (count('failing') > 0) parts.push(`${count('failing')} failing`);
  if (count('off') > 0) parts.push(`${count('off')} off`);
  return { text: parts.join(' · '), tone: !health.ready ? 'bad' : count('failing') > 0 ? 'warn' : 'ok' };
}

/** One integration: on (since its last success), off (with the settings that turn it on), or failing (its error, and when). */
function integrationItem(entry) {
  const why =
    entry.state === 'off'
      ? [el('span', { class: 'muted' }, 'turn on with ', el('code', { text: entry.enableWith ?? 'its settings' }))]
      : entry.state === 'failing'
        ? [
            el('span', { class: 'error', dataset: { field: 'last-error' }, text: entry.lastError ?? 'failing' }),
            entry.lastErrorAt ? [' ', ago(entry.lastErrorAt)] : '',
          ]
        : [entry.lastOkAt ? el('span', { class: 'muted' }, 'last ok ', ago(entry.lastOkAt)) : el('span', { class: 'muted', text: 'no call yet' })];
  return el(
    'li',
    { dataset: { integration: entry.name, state: entry.state } },
    el('span', { class: 'integration-name', text: entry.label }),
    ' ',
    el('span', { class: `state ${STATE_CLASS[entry.state]}`, dataset: { field: 'state' }, text: entry.state }),
    ' ',
    why,
    entry.detail ? el('span', { class: 'muted small block', text: entry.detail }) : '',
  );
}

/** Momentum's newest answer as one phrase: "ok (200)" or "HTTP 401: … (http_4xx)". */
function lastAnswerText(answer) {
  if (!answer) return el('span', { class: 'muted', text: 'no call yet' });
  const what = answer.ok
    ? `ok${answer.status ? ` (${answer.status})` : ''}`
    : `${answer.error ?? 'failed'}${answer.errorClass ? ` (${answer.errorClass})` : ''}`;
  return el('span', { dataset: { field: 'momentum-answer' } }, el('span', { class: answer.ok ? '' : 'error', text: what }), ' ', ago(answer.at));
}

/**
 * The health panel in #health-slot (GET /admin/health): readiness, version, uptime, engine, the
 * instances seen, every integration's state and Momentum's mode and last answer, and, with
 * SALESFORCE_PUBSUB on, each Change Data Capture channel (GET /admin/pubsub). Its summary line
 * ("Healthy · 6 on · 1 failing") is always shown; the list below it opens on a laptop and stays
 * folded on a phone, where the first screen is for the active view (the summary unfolds it). `onHealth` gets every answer
 * (the sandbox banner reads it).
 */
export function createHealth({ api, onHealth = (_health) => {} }) {
  const slot = byId('health-slot');
  // Built once and updated in place, so a refresh neither folds the list nor takes the focus away.
  const word = el('span', { class: 'health-word', dataset: { field: 'health-summary' } });
  const body = el('div', { class: 'health-body' });
  const details = el(
    'details',
    { id: 'health-details' },
    el('summary', {}, el('h2', { id: 'health-title', class: 'inline', text: 'Health' }), ' ', word),
    body,
  );
  const panel = el('section', { class: 'panel health', 'aria-labelledby': 'health-title' }, details);

  // Folded on a phone, open on a laptop, following the width, until the operator folds or opens it.
  const phone = window.matchMedia(PHONE);
  let foldedByHand = false;
  details.querySelector('summary')?.addEventListener('click', () => (foldedByHand = true));
  phone.addEventListener('change', () => {
    if (!foldedByHand) details.open = !phone.matches;
  });

  function render(health, pubsub) {
    const summary = healthSummary(health);
    if (!panel.isConnected) {
      details.open = !phone.matches;
      slot.replaceChildren(panel);
    }
    word.textContent = summary.text;
    word.className = `health-word tone-${summary.tone}`;
    panel.className = `panel health tone-${summary.tone}`;
    panel.dataset.loaded = 'true';
    const self = health.instances.find((instance) => instance.self);
    const failedChecks = health.checks.filter((check) => !check.ok).map((check) => `${check.name} ${check.reason ?? ''}`.trim());
    body.replaceChildren(
      fields([
        ['Ready', health.ready ? 'yes' : `no: ${failedChecks.join(', ')}`],
        ['Version', health.version],
        ['Up', `${formatAge(health.uptimeSeconds * 1000)} (since ${formatTime(health.startedAt)})`],
        ['Engine', health.engine],
        [
          'Instances',
          el(
            'span',
            { dataset: { field: 'instances' }, title: health.instances.map((instance) => `${instance.id} ${instance.version}`).join('\n') },
            `${health.instances.length} seen in the last ${formatAge(health.instancesSeenWithinSeconds * 1000)}${self ? ` (this one: ${self.host})` : ''}`,
          ),
        ],
        [
          'Momentum',
          el(
            'span',
            { dataset: { field: 'momentum-mode' } },
            health.momentum.mode === 'sandbox' ? 'sandbox (nothing is sent)' : 'real',
            ' · last answer ',
            lastAnswerText(health.momentum.lastAnswer),
          ),
        ],
      ]),
      el('h3', { text: 'Integrations' }),
      el('ul', { class: 'integrations', dataset: { field: 'integrations' } }, health.integrations.map(integrationItem)),
      ...pubsubSection(pubsub),
    );
  }

  async function refresh() {
    // A bridge without the health route answers 404: the slot stays empty.
    // A bridge without the route answers 404: nothing is shown for it.
    const optional = (path) => api.get(path).catch((error) => (error instanceof ApiError && error.status === 404 ? null : Promise.reject(error)));
    const [health, pubsub] = (await attempt(() => Promise.all([optional('health'), optional('pubsub')]))) ?? [];
    if (health === undefined || health === null) return;
    render(health, pubsub);
    onHealth(health);
  }

  return { refresh };
}

/** The banner in #banner-slot while Momentum is the sandbox: every delivery "succeeds" without reaching Momentum. */
export function renderSandboxBanner(health) {
  const slot = byId('banner-slot');
  if (health.momentum.mode !== 'sandbox') {
    slot.replaceChildren();
    return;
  }
  slot.replaceChildren(
    el(
      'p',
      { id: 'sandbox-banner', class: 'banner', role: 'status' },
      el('strong', { text: 'Sandbox: nothing reaches Momentum' }),
      ' — set ',
      el('code', { text: 'MOMENTUM_API_KEY' }),
      ' to deliver for real.',
    ),
  );
}
