import { el } from './dom.js';

/**
 * Links from Salesforce ids to the org's records. The admin API does not name the org's URL; an
 * Outbound Message carries it (`EnterpriseUrl`, the org's `<domain>.my.salesforce.com/services/Soap/…` address),
 * so the raw payload of a Salesforce event tells it. Only https origins on Salesforce's own
 * domains are taken: the link must not point anywhere a crafted message says.
 */
const ENTERPRISE_URL = /<(?:[A-Za-z_][\w.-]*:)?EnterpriseUrl>\s*([^<\s]+)\s*<\//;
const SALESFORCE_HOST = /(?:^|\.)(?:salesforce\.com|force\.com|salesforce\.mil|cloudforce\.com)$/i;
const ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;

/** The org's origin (scheme and host, such as `acme.my.salesforce.com` over HTTPS) from an Outbound Message's XML text, if it names one we trust. */
export function orgOriginFromMessage(xml) {
  const match = ENTERPRISE_URL.exec(xml ?? '');
  if (!match) return undefined;
  try {
    const url = new URL(match[1].replaceAll('&amp;', '&'));
    return url.protocol === 'https:' && SALESFORCE_HOST.test(url.hostname) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Remembers the org origin per organization id as events are read. `learnFromLatest` reads the
 * newest Salesforce event once, so the deliveries table can link before any event is opened.
 */
export function createOrgLinks({ api }) {
  /** @type {Map<string, string>} organizationId → origin */
  const origins = new Map();
  let learning;

  function learn(event, message) {
    const origin = orgOriginFromMessage(message?.rawPayload);
    const org = event?.parsedPayload?.organizationId ?? 'unknown';
    if (origin) origins.set(org, origin);
    return origin;
  }

  /** One org known: ids without an org (the deliveries list) link to it; two or more: only where the org is known. */
  const onlyOrigin = () => (origins.size === 1 ? [...origins.values()][0] : undefined);

  return {
    learn,
    learnFromLatest() {
      learning ??= (async () => {
        const page = await api.get('events', { source: 'salesforce', limit: 1 }).catch(() => null);
        const latest = page?.items?.[0];
        if (!latest) return;
        const detail = await api.get(`events/${latest.id}`).catch(() => null);
        if (detail) learn(detail.event, detail.message);
      })().finally(() => {
        // Tried again on the next load when nothing was learnt (no Salesforce event yet).
        if (origins.size === 0) learning = undefined;
      });
      return learning;
    },
    known: () => onlyOrigin() !== undefined,
    /** The id as a link to its record (new tab) when the org is known, else as plain code. */
    link(id, origin = onlyOrigin()) {
      if (!origin || !ID.test(id)) return el('code', { text: id });
      return el('a', { href: `${origin}/${id}`, target: '_blank', rel: 'noopener noreferrer', class: 'sf-link', text: id });
    },
  };
}
