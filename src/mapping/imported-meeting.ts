import { IMPORT_JOB, importCoalesceKey } from '../momentum/delivery-jobs.ts';
import { importDeliveryPayloadSchema, type MeetingDetails, type RemapRequest } from '../momentum/schemas.ts';
import type { JobQueue } from '../store/types.ts';

/** The source type Momentum lists imported (user-provided) meetings under (docs/protocols.md §1). */
export const IMPORTED_SOURCE_TYPE = 'USER_PROVIDED';

const nonEmpty = (text: string | undefined): text is string => text !== undefined && /\S/.test(text);

/**
 * A remap of a meeting a recording of which Momentum has imported: Momentum holds the meeting as
 * that import, so the remap names it by the import's id as a USER_PROVIDED source, with the
 * details it was imported with (docs/protocols.md §1 says why both). Only an import that
 * succeeded counts; otherwise the remap goes as mapped.
 */
export async function nameImportedMeeting(
  request: RemapRequest,
  importedIds: readonly string[],
  store: Pick<JobQueue, 'lastSucceeded'>,
): Promise<RemapRequest> {
  for (const id of importedIds) {
    const imported = await store.lastSucceeded(IMPORT_JOB, importCoalesceKey(id));
    if (imported === undefined) continue;
    const parsed = importDeliveryPayloadSchema.safeParse(imported.payload);
    const meeting = parsed.success ? parsed.data.request.meeting : {};
    const details: MeetingDetails = {
      ...(nonEmpty(meeting.title) ? { title: meeting.title } : {}),
      ...(meeting.startTime === undefined ? {} : { startTime: meeting.startTime }),
      ...(meeting.host?.email === undefined ? {} : { hostEmail: meeting.host.email }),
    };
    const meetingDetails = Object.keys(details).length > 0 ? details : request.meetingDetails;
    return { source: { type: IMPORTED_SOURCE_TYPE, id }, salesforceRecords: request.salesforceRecords, ...(meetingDetails ? { meetingDetails } : {}) };
  }
  return request;
}
