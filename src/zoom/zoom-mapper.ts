import { type RecordingEvent, recordingEventSchema } from '../calendar/recording-event.ts';
import { mapRecording, type RecordingMapperDeps } from '../calendar/recording-mapper.ts';
import { describeIssues } from '../core/describe-issues.ts';
import { type EventMapper, UnmappableEventError } from '../mapping/event-mapper.ts';
import type { ZoomClient } from './zoom-client.ts';

/**
 * The map-event mapper for Zoom recordings: the participants are read from Zoom's API (they are
 * not in the event), then the recording maps like any other. Without Zoom API credentials, or
 * when Zoom has no participants for the meeting (404), the import goes without attendees; a
 * passing failure (network, 5xx, 429) retries the mapping job.
 */
export function createZoomMapper(deps: RecordingMapperDeps & { client: ZoomClient | undefined }): EventMapper {
  return async (inbound, context) => {
    const parsed = recordingEventSchema.safeParse(inbound.parsedPayload);
    if (!parsed.success) throw new UnmappableEventError(`stored Zoom recording ${inbound.id} is unreadable: ${describeIssues(parsed.error)}`);
    const recording: RecordingEvent = parsed.data;
    const participants =
      deps.client !== undefined && recording.zoomUuid !== undefined ? await deps.client.participants(recording.zoomUuid, context.signal) : undefined;
    if (participants === undefined)
      context.logger.info('zoom recording imported without attendees', { eventId: inbound.id, apiConfigured: deps.client !== undefined });
    // Zoom lists a participant once per join: one attendee per email.
    const byEmail = new Map<string, { email: string; name?: string }>();
    for (const participant of participants ?? []) {
      const key = participant.email?.toLowerCase();
      if (key && !byEmail.has(key)) byEmail.set(key, { email: participant.email!, ...(participant.name ? { name: participant.name } : {}) });
    }
    const attendees = [...byEmail.values()];
    // The event names the host by email only; the host's own participant entry gives the name.
    const hostEmail = recording.host?.email?.toLowerCase();
    const hostName = attendees.find((attendee) => attendee.email.toLowerCase() === hostEmail)?.name;
    const host = recording.host && hostName && !recording.host.name ? { ...recording.host, name: hostName } : recording.host;
    return mapRecording({ ...recording, ...(host ? { host } : {}), attendees }, deps);
  };
}
