import { classifySalesforceId, normalizeSalesforceId, type RecordKind } from '../mapping/salesforce-ids.ts';
import type { CalendarEvent } from './calendar-event.ts';
import type { FoundIds } from './record-links.ts';

const KINDS: readonly RecordKind[] = ['opportunity', 'account', 'lead'];

/**
 * Rule 1 of calendar matching: ids set on purpose. Google events carry them in
 * extendedProperties (private first, then shared) under the rules' explicitIdKeys; the generic
 * body names them in `salesforce`. A value whose prefix does not fit its key is ignored.
 */
export function explicitIds(event: Pick<CalendarEvent, 'explicitIds' | 'extendedProperties'>, keys: Readonly<Record<RecordKind, string>>): FoundIds {
  const found: FoundIds = {};
  const fromBody = event.explicitIds;
  if (fromBody?.opportunityId) found.opportunity = fromBody.opportunityId;
  if (fromBody?.accountId) found.account = fromBody.accountId;
  if (fromBody?.leadId) found.lead = fromBody.leadId;

  const maps = [event.extendedProperties?.private, event.extendedProperties?.shared];
  for (const kind of KINDS) {
    if (found[kind] !== undefined) continue;
    for (const map of maps) {
      const value = map?.[keys[kind]];
      const id = value === undefined ? undefined : normalizeSalesforceId(value);
      if (id !== undefined && classifySalesforceId(id) === kind) {
        found[kind] = id;
        break;
      }
    }
  }
  return found;
}

export function hasIds(found: FoundIds): boolean {
  return KINDS.some((kind) => found[kind] !== undefined);
}
