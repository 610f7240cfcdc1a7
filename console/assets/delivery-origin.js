import { el, fields, formatTime, stateBadge } from './dom.js';

const MAP_EVENT = 'map-event';

/** The Salesforce ids a delivery's request names: a remap's salesforceRecords, an import's meeting ids. */
export function requestSalesforceIds(request) {
  if (!request || typeof request !== 'object') return [];
  const records = request.salesforceRecords ?? {};
  const meeting = request.meeting ?? {};
  return [records.opportunityId, records.accountId, records.leadId, meeting.salesforceOpportunityId, meeting.salesforceAccountId].filter(
    (id) => typeof id === 'string' && id !== '',
  );
}

/**
 * Where a delivery came from: its inbound event (read once per delivery, so the panel's polling
 * does not read it again), the org it names, and the mapping rule. The map-event job's result names
 * the rule when the bridge records it, as does the delivery's match record; otherwise the event is previewed under today's rules
 * (POST /admin/mapping/preview: nothing stored or sent) and the panel says that is what it shows.
 */
export function createDeliveryOrigin({ api, orgLinks }) {
  /** @type {Map<number, Promise<any>>} */
  const cache = new Map();

  async function ruleOf(eventDetail, kind) {
    const mapJobs = eventDetail.jobs.filter((job) => job.kind === MAP_EVENT && job.state === 'succeeded');
    const recorded = mapJobs.map((job) => job.result?.rule).find((rule) => typeof rule === 'string');
    if (recorded) return { rule: recorded, recorded: true };
    try {
      const preview = await api.post('mapping/preview', { eventId: eventDetail.event.id });
      const result = preview.results.find((item) => item.outcome === kind) ?? preview.results[0];
      return result ? { rule: result.rule, recorded: false, outcome: result.outcome, reason: result.reason } : { error: 'the preview found no record' };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** `match`: the match record that made the delivery, which names its rule; without one the rule is previewed. */
  async function load(delivery, eventSummary, match) {
    const eventDetail = await api.get(`events/${eventSummary.id}`);
    const origin = orgLinks.learn(eventDetail.event, eventDetail.message);
    return { eventDetail, origin, rule: match ? { rule: match.rule, recorded: true } : await ruleOf(eventDetail, delivery.kind) };
  }

  function ruleText(rule) {
    if (rule.error) return el('span', { class: 'muted', text: `unknown (${rule.error})` });
    if (rule.recorded) return el('code', { dataset: { field: 'rule' }, text: rule.rule });
    return el(
      'span',
      {},
      el('code', { dataset: { field: 'rule' }, text: rule.rule }),
      el('span', {
        class: 'muted small block',
        text:
          rule.outcome === 'skipped'
            ? `Today's rules would skip this event (${rule.reason ?? 'no reason given'}); the bridge does not record the rule of the run that made the delivery.`
            : "As today's rules map the event (a preview); the bridge does not record the rule of the run that made the delivery.",
      }),
    );
  }

  /**
   * Fills `holder` with the origin of `detail.delivery`: at once from the cache, else once loaded.
   * `openEvent` opens the event in the Inbound events view.
   */
  async function fill(holder, detail, openEvent) {
    const { delivery, event } = detail;
    const ids = requestSalesforceIds(delivery.request);
    if (!event) {
      holder.replaceChildren(
        fields([
          ['Inbound event', 'none: a manual delivery, or one whose event was removed'],
          [
            'Salesforce',
            ids.length
              ? el(
                  'span',
                  { class: 'ids' },
                  ids.map((id) => [orgLinks.link(id), ' ']),
                )
              : '—',
          ],
        ]),
      );
      return;
    }
    if (!cache.has(delivery.id)) cache.set(delivery.id, load(delivery, event, detail.match));
    if (!holder.childNodes.length) holder.append(el('p', { class: 'muted', text: `Reading inbound event #${event.id}…` }));
    let origin;
    try {
      origin = await cache.get(delivery.id);
    } catch (error) {
      cache.delete(delivery.id);
      holder.replaceChildren(
        el('p', { class: 'error', text: `Inbound event #${event.id} could not be read: ${error instanceof Error ? error.message : String(error)}` }),
      );
      return;
    }
    const { eventDetail, rule } = origin;
    const shown = eventDetail.event;
    holder.replaceChildren(
      fields([
        [
          'Inbound event',
          el(
            'span',
            {},
            el('button', {
              type: 'button',
              class: 'link',
              dataset: { id: shown.id },
              onclick: () => openEvent(shown.id),
              text: `#${shown.id} ${shown.source}`,
            }),
            ' ',
            stateBadge(shown.state),
          ),
        ],
        ['Received', formatTime(shown.receivedAt)],
        ['Key', shown.dedupeKey],
        ['Mapping rule', ruleText(rule)],
        [
          'Salesforce',
          ids.length
            ? el(
                'span',
                { class: 'ids', dataset: { field: 'salesforce' } },
                ids.map((id) => [orgLinks.link(id, origin.origin), ' ']),
              )
            : '—',
        ],
      ]),
    );
    holder.dataset.loaded = String(delivery.id);
  }

  return { fill };
}
