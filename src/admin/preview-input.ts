import type { z } from 'zod';

import { bodyIssues } from '../calendar/body-issues.ts';
import { genericCalendarEventSchema, genericRecordingSchema } from '../calendar/generic-event-schema.ts';
import { normaliseGenericEvent, normaliseGenericRecording } from '../calendar/normalise.ts';
import { AppError } from '../core/errors.ts';
import { parseOutboundMessage } from '../salesforce/soap-parser.ts';
import { storedNotifications, storedNotificationSchema } from '../salesforce/stored-notification.ts';
import type { InboundEvent, Store } from '../store/types.ts';
import type { MappingPreviewBody } from './request-schemas.ts';

/** One record to preview: the inbound event its receiver stores (or stored), with its notification id for Salesforce. */
export interface PreviewRecord {
  event: InboundEvent;
  notificationId?: string;
}

/** What a preview maps: records of one inbound source, in payload order. */
export interface PreviewInput {
  source: string;
  records: PreviewRecord[];
}

export interface PreviewInputDeps {
  store: Pick<Store, 'getEvent'>;
  /** Why an org is refused (the Salesforce receiver's own check), or undefined when it is allowed. */
  orgRefusal: (organizationId: string) => string | undefined;
}

/** The event a receiver would store, never stored: it has no id (0). */
const unstored = (source: string, parsedPayload: unknown): InboundEvent => ({
  id: 0,
  messageId: 0,
  source,
  senderId: null,
  dedupeKey: 'preview',
  parsedPayload,
  receivedAt: Date.now(),
  state: 'received',
  stateReason: null,
});

/** The calendar route's refusal of a body that does not match its schema, with every zod issue, paths from the request body. */
function invalidPayload(schema: string, error: z.ZodError): AppError {
  const issues = bodyIssues(error.issues, ['payload']);
  const first = issues[0];
  return new AppError('invalid_payload', `payload does not match the ${schema} schema (version 1)${first ? `: ${first.path}: ${first.message}` : ''}`, {
    status: 400,
    details: { issues },
  });
}

/** As POST /salesforce/outbound-message reads it: the same parser, the same org check, the same stored notifications. */
function fromOutboundMessage(xml: string, orgRefusal: PreviewInputDeps['orgRefusal']): PreviewInput {
  // The parser throws the receiver's 400s itself: invalid_xml, xml_dtd_refused, invalid_soap.
  const message = parseOutboundMessage(xml);
  const refused = orgRefusal(message.organizationId);
  // 400, not the Salesforce route's 403: the admin key is good, the payload is one the bridge refuses.
  if (refused !== undefined) throw new AppError('org_not_allowed', refused, { status: 400 });
  const records = storedNotifications(message).map((notification) => ({
    event: unstored('salesforce', notification),
    notificationId: notification.notificationId,
  }));
  return { source: 'salesforce', records };
}

/** As POST /calendar/events reads a verified body: a recording (`kind: recording`) or a meeting, normalised as stored. */
function fromSignedBody(body: Record<string, unknown>): PreviewInput {
  if (body.kind === 'recording') {
    const recording = genericRecordingSchema.safeParse(body);
    if (!recording.success) throw invalidPayload('recording', recording.error);
    return { source: 'recording', records: [{ event: unstored('recording', normaliseGenericRecording(recording.data)) }] };
  }
  const meeting = genericCalendarEventSchema.safeParse(body);
  if (!meeting.success) throw invalidPayload('calendar event', meeting.error);
  return { source: 'calendar', records: [{ event: unstored('calendar', normaliseGenericEvent(meeting.data)) }] };
}

async function fromStoredEvent(store: PreviewInputDeps['store'], id: number): Promise<PreviewInput> {
  const event = await store.getEvent(id);
  if (event === undefined) throw new AppError('not_found', `inbound event ${id} does not exist`, { status: 404 });
  const notificationId = event.source === 'salesforce' ? storedNotificationSchema.safeParse(event.parsedPayload).data?.notificationId : undefined;
  return { source: event.source, records: [{ event, ...(notificationId === undefined ? {} : { notificationId }) }] };
}

/** The records a preview body names; the body schema has checked which of its shapes it is. */
export async function previewInput(body: MappingPreviewBody, deps: PreviewInputDeps): Promise<PreviewInput> {
  if (body.eventId !== undefined) return fromStoredEvent(deps.store, body.eventId);
  if (body.source === 'salesforce' && typeof body.payload === 'string') return fromOutboundMessage(body.payload, deps.orgRefusal);
  if (body.source === 'calendar' && typeof body.payload === 'object') return fromSignedBody(body.payload);
  throw new Error('mapping preview body passed its schema without eventId, or a payload matching its source');
}
