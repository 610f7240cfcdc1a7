import type { StoredNotification } from '../stored-notification.ts';
import type { ChangeEventHeader } from './change-header.ts';

/**
 * A Change Data Capture event turned into what an Outbound Message of the same object stores (one
 * StoredNotification per record), so the mapping file, re-matching and delivery treat both
 * sources alike (docs/protocols.md, Pub/Sub). What the event cannot say itself is named for the
 * subscriber to read through REST: a gap event carries no fields, an update only the changed ones.
 */

/** What the notifications are made of: the decoded event's header (change-header.ts) and its non-null fields. */
export interface CdcChange {
  header: Pick<ChangeEventHeader, 'entityName' | 'recordIds' | 'changeType' | 'changeOrigin' | 'transactionKey' | 'sequenceNumber' | 'commitTimestamp'>;
  fields: Record<string, unknown>;
}

export interface CdcContext {
  orgId: string;
  topic: string;
  /** SALESFORCE_CLIENT_ID: the bridge's own writes carry it in changeOrigin. */
  selfClientId: string | undefined;
  /** Whether the mapping file maps this sObject type to a meeting: its updates need the whole record. */
  mapsType(sObjectType: string): boolean;
}

export type CdcOutcome =
  | { kind: 'ignored'; reason: string }
  /** One per record the event names (several when records were merged); some to be read through REST first. */
  | { kind: 'notifications'; notifications: CdcNotification[] }
  /** More than 100 000 changes in one transaction: the entity is read again around the commit. */
  | { kind: 'overflow'; entityName: string; commitTimestamp: number };

export interface CdcNotification {
  /** The dedupe key: a redelivered event (after a reconnect) stores nothing again. */
  dedupeKey: string;
  notification: StoredNotification;
  /** Read the record through REST before storing: a gap event (no fields) or an update (changed fields only). */
  fetch: boolean;
  /** A delete: stored with no field data, which the mapping skips as it does a record deleted before an Outbound Message. */
  deleted: boolean;
}

/** `com/salesforce/api/rest/60.0;client=<id>`: the client part, compared whole. */
export function originClient(changeOrigin: string): string | undefined {
  const match = /(?:^|;)\s*client=([^;]+)/.exec(changeOrigin);
  return match?.[1]?.trim();
}

/** Values as an Outbound Message carries them: text, dates and times in ISO 8601, booleans as true/false. */
function asText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return undefined;
}

function textFields(fields: Record<string, unknown>): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    const converted = asText(value);
    if (converted !== undefined) text[name] = converted;
  }
  return text;
}

/** Unmapped types whose updates re-matching can use only with fields the update may leave out. */
const READ_WHOLE_ON_UPDATE: ReadonlySet<string> = new Set(['OpportunityContactRole']);

export function cdcNotifications(change: CdcChange, context: CdcContext): CdcOutcome {
  const { header } = change;
  const client = originClient(header.changeOrigin);
  if (context.selfClientId !== undefined && client === context.selfClientId) {
    return { kind: 'ignored', reason: `made by the bridge itself (changeOrigin client=${client})` };
  }
  if (header.changeType === 'GAP_OVERFLOW') return { kind: 'overflow', entityName: header.entityName, commitTimestamp: header.commitTimestamp };
  // A wildcard (`001*`) names no record the bridge can read one by one.
  const ids = header.recordIds.filter((id) => /^[0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?$/.test(id));
  if (ids.length === 0) return { kind: 'ignored', reason: `names no record id (${header.recordIds.join(', ') || 'none'})` };
  const gap = header.changeType.startsWith('GAP_');
  const deleted = header.changeType === 'DELETE' || header.changeType === 'GAP_DELETE';
  const fields = textFields(change.fields);
  // Salesforce does not capture SystemModstamp: the commit time orders a record's states instead.
  const modstamp = new Date(header.commitTimestamp).toISOString();
  return {
    kind: 'notifications',
    notifications: ids.map((id) => ({
      dedupeKey: `salesforce-cdc:${header.transactionKey}:${header.sequenceNumber}:${id.slice(0, 15)}`,
      notification: {
        version: 1,
        organizationId: context.orgId,
        actionId: context.topic,
        notificationId: `cdc:${header.transactionKey}:${header.sequenceNumber}:${id}`,
        sObjectType: header.entityName,
        fields: deleted ? {} : { ...fields, Id: id, SystemModstamp: modstamp },
      },
      // Re-matching reads only what changed (an Opportunity's Account, a Contact's Email); a mapped
      // type's update names only its changed fields, and the mapping needs the whole record; so does
      // a contact role's, whose Opportunity re-matching must know whatever changed.
      fetch: !deleted && (gap || (header.changeType === 'UPDATE' && (context.mapsType(header.entityName) || READ_WHOLE_ON_UPDATE.has(header.entityName)))),
      deleted,
    })),
  };
}
