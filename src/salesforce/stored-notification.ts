import { z } from 'zod';

import type { OutboundMessage } from './outbound-message.ts';

/**
 * One Outbound Message notification as the bridge stores it (an inbound event's parsedPayload):
 * written by the receiver, read by the mapper and the mapping order. Rows written before the
 * schema carried a version have none and are version 1.
 */
export const storedNotificationSchema = z.object({
  version: z.literal(1).default(1),
  organizationId: z.string(),
  actionId: z.string(),
  notificationId: z.string(),
  sObjectType: z.string(),
  fields: z.record(z.string(), z.string()),
});

export type StoredNotification = z.output<typeof storedNotificationSchema>;

/** Each notification of a parsed Outbound Message as it is stored, one inbound event each. */
export function storedNotifications(message: OutboundMessage): StoredNotification[] {
  const { organizationId, actionId } = message;
  return message.notifications.map((notification) => ({
    version: 1,
    organizationId,
    actionId,
    notificationId: notification.id,
    sObjectType: notification.sObjectType,
    fields: notification.fields,
  }));
}

/** The record a notification is a state of. A 15- and an 18-character id name one record: the first 15 characters are the id. */
export function salesforceRecordKey(parsedPayload: unknown): string | undefined {
  const parsed = storedNotificationSchema.safeParse(parsedPayload);
  const id = parsed.data?.fields.Id;
  return parsed.success && id !== undefined ? `${parsed.data.sObjectType}:${id.slice(0, 15)}` : undefined;
}

/**
 * The record's own version of this state (epoch ms): `SystemModstamp`, else `LastModifiedDate`.
 * Salesforce retries out of order, so this, not the order of receipt, orders a record's states
 * (docs/protocols.md §2).
 */
export function salesforceVersion(notification: StoredNotification): number | undefined {
  const text = notification.fields.SystemModstamp ?? notification.fields.LastModifiedDate;
  const ms = text === undefined ? NaN : Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
