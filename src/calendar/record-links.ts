import { classifySalesforceId, normalizeSalesforceId, type RecordKind } from '../mapping/salesforce-ids.ts';

/**
 * Salesforce ids a rep pasted into a meeting's description or location: Lightning record URLs
 * (`/lightning/r/Opportunity/<id>/view`), Classic URLs (`https://acme.my.salesforce.com/<id>`) and
 * bare 15- or 18-character ids with a known key prefix (docs/protocols.md §2 "Record ids").
 */

export type FoundIds = Partial<Record<RecordKind, string>>;

const LIGHTNING = /\/lightning\/r\/(?:[A-Za-z0-9_]+\/)?([0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?)(?=[/?#\s"'<>)]|$)/g;
const CLASSIC = /(?:salesforce\.com|force\.com)\/([0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?)(?=[/?#\s"'<>)]|$)/g;
// A bare id stands alone: not inside a longer word, URL path segment or another id.
const BARE = /(?<![0-9A-Za-z/])((?:001|006|00Q)[0-9A-Za-z]{12}(?:[0-9A-Za-z]{3})?)(?![0-9A-Za-z])/g;

function* candidates(text: string): Generator<string> {
  // Links first: a URL names its record unambiguously; a bare token only looks like an id.
  for (const pattern of [LIGHTNING, CLASSIC, BARE]) {
    for (const match of text.matchAll(pattern)) yield match[1]!;
  }
}

/** The first id of each kind found in the texts, normalised to 18 characters. */
export function findRecordIds(...texts: Array<string | undefined>): FoundIds {
  const found: FoundIds = {};
  for (const text of texts) {
    if (!text) continue;
    for (const candidate of candidates(text)) {
      const id = normalizeSalesforceId(candidate);
      if (id === undefined) continue;
      const kind = classifySalesforceId(id);
      if (kind !== undefined && found[kind] === undefined) found[kind] = id;
    }
  }
  return found;
}
