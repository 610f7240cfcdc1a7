import { el, formatAge, formatTime } from './dom.js';

/*
 * The Salesforce Pub/Sub part of the health panel (GET /admin/pubsub): one line per Change Data
 * Capture channel with its state, how old the stored replay id is, and the last event, keepalive
 * and error. Shown only where SALESFORCE_PUBSUB is on: a bridge without it has nothing to say.
 */

const STATE_CLASS = { subscribed: 'state-succeeded', resubscribing: 'state-pending', backstop: 'state-pending', stopped: 'state-skipped' };

const ago = (iso) => el('time', { datetime: iso, title: formatTime(iso), text: `${formatAge(Date.now() - new Date(iso).getTime())} ago` });

/** "label 3 min ago", or "no label yet" when it never happened. */
const when = (label, iso, field) => el('span', { class: 'muted', dataset: { field } }, iso ? [`${label} `, ago(iso)] : `no ${label} yet`);

/** The age is the newest stored event's: a replay id stored from keepalives alone has none. */
function replayAge(replayId, ageSeconds) {
  if (ageSeconds !== null) return `replay id ${formatAge(ageSeconds * 1000)} old`;
  return replayId ? 'replay id from keepalives, no event yet' : 'no replay id stored yet';
}

function topicItem(subscription) {
  const age = subscription.replayIdAgeSeconds;
  return el(
    'li',
    { dataset: { topic: subscription.topic, state: subscription.state } },
    el('code', { class: 'integration-name', text: subscription.topic }),
    ' ',
    el('span', { class: `state ${STATE_CLASS[subscription.state] ?? ''}`, dataset: { field: 'state' }, text: subscription.state }),
    el(
      'span',
      { class: 'small block' },
      el('span', { dataset: { field: 'replay-age' }, title: subscription.replayId ?? '' }, replayAge(subscription.replayId, age)),
      ' · ',
      when('last event', subscription.lastEventAt, 'last-event'),
      ' · ',
      when('keepalive', subscription.lastKeepaliveAt, 'last-keepalive'),
    ),
    subscription.lastError
      ? el(
          'span',
          { class: 'small block' },
          el('span', { class: 'error', dataset: { field: 'last-error' }, text: subscription.lastError }),
          subscription.lastErrorAt ? [' ', ago(subscription.lastErrorAt)] : '',
        )
      : '',
  );
}

/** The panel's Pub/Sub block (a heading and a line per channel), or nothing when Pub/Sub is off (or the route is missing). */
export function pubsubSection(status) {
  if (!status?.enabled) return [];
  const items = status.subscriptions.map(topicItem);
  return [
    el(
      'div',
      { class: 'pubsub-topics' },
      el('h3', { id: 'pubsub-title', text: 'Salesforce Pub/Sub channels' }),
      items.length
        ? el('ul', { class: 'integrations', dataset: { field: 'pubsub-topics' }, 'aria-labelledby': 'pubsub-title' }, items)
        : el('p', { class: 'muted', dataset: { field: 'pubsub-topics' }, text: 'No channel subscribed yet.' }),
    ),
  ];
}
