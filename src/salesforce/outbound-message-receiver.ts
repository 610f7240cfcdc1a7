import { AppError } from '../core/errors.ts';
import { mapEventJobsFor } from '../mapping/map-event-job.ts';
import type { InboundEvent, IngestResult, NewJob, Store } from '../store/types.ts';
import type { OutboundMessage } from './outbound-message.ts';
import { parseOutboundMessage } from './soap-parser.ts';
import { salesforceRecordKey, type StoredNotification } from './stored-notification.ts';

export interface OutboundMessageReceiverDeps {
  store: Store;
  /** Allowed org ids (15 or 18 characters); must not be empty. */
  orgIds: readonly string[];
  jobsFor?: (event: InboundEvent) => NewJob[];
}

export type ReceiveOutboundMessage = (xml: string) => Promise<{ message: OutboundMessage; result: IngestResult }>;

/**
 * Parse → check the org → store every notification and its mapping job in one transaction.
 * Throws AppError: 400 (bad message), 403 (org not allowed), 500 (not stored: Salesforce retries).
 */
export function outboundMessageReceiver(deps: OutboundMessageReceiverDeps): ReceiveOutboundMessage {
  // Salesforce compares org ids on their first 15 characters, case-sensitively (docs/protocols.md §2).
  const allowed = new Set(deps.orgIds.map((id) => id.slice(0, 15)));
  const jobsFor = deps.jobsFor ?? mapEventJobsFor(salesforceRecordKey);

  return async (xml) => {
    const message = parseOutboundMessage(xml);
    if (!allowed.has(message.organizationId.slice(0, 15))) {
      throw new AppError('org_not_allowed', `OrganizationId ${message.organizationId} is not allowed: it is not listed in SALESFORCE_ORG_IDS`, {
        status: 403,
      });
    }
    const { organizationId, actionId } = message;
    const events = message.notifications.map((notification) => {
      const parsedPayload: StoredNotification = {
        version: 1,
        organizationId,
        actionId,
        notificationId: notification.id,
        sObjectType: notification.sObjectType,
        fields: notification.fields,
      };
      // Redeliveries carry the same notification Id: de-duplicating on it makes them acked, not re-processed.
      return { dedupeKey: `salesforce:${notification.id}`, parsedPayload };
    });
    try {
      const result = await deps.store.ingest({ source: 'salesforce', senderId: organizationId, rawPayload: xml, events }, jobsFor);
      return { message, result };
    } catch (cause) {
      // Not stored means not acked: Salesforce redelivers the whole message later (docs/protocols.md §2).
      throw new AppError('store_unavailable', 'the message could not be stored; it will be accepted on a retry', { status: 500, cause });
    }
  };
}
