import { type RecordingEvent, recordingEventSchema } from '../calendar/recording-event.ts';
import { mapRecording, type RecordingMapperDeps } from '../calendar/recording-mapper.ts';
import { describeIssues } from '../core/describe-issues.ts';
import { type EventMapper, UnmappableEventError } from '../mapping/event-mapper.ts';
import { zoomAttendees } from './zoom-attendees.ts';
import type { ZoomClient } from './zoom-client.ts';
import { endAfter } from './zoom-event.ts';

/**
 * The map-event mapper for Zoom recordings: the participants are read from Zoom's API (they are
 * not in the event), then the recording maps like any other. Without Zoom API credentials, or
 * when Zoom has no participants for the meeting (404), the import goes without attendees; a
 * passing failure (network, 5xx, 429) retries the mapping job. Attendees past the bound are cut,
 * and the cut is noted on the event beside its delivery.
 */
export function createZoomMapper(deps: RecordingMapperDeps & { client: ZoomClient | undefined }): EventMapper {
  return async (inbound, context) => {
    const parsed = recordingEventSchema.safeParse(inbound.parsedPayload);
    if (!parsed.success) throw new UnmappableEventError(`stored Zoom recording ${inbound.id} is unreadable: ${describeIssues(parsed.error)}`);
    const recording: RecordingEvent = parsed.data;
    const list = deps.client !== undefined && recording.zoomUuid !== undefined ? await deps.client.participants(recording.zoomUuid, context.signal) : undefined;
    if (list === undefined) context.logger.info('zoom recording imported without attendees', { eventId: inbound.id, apiConfigured: deps.client !== undefined });
    const { attendees, hostName, truncated } = zoomAttendees(list, recording.host?.email);
    if (truncated !== undefined) context.logger.warn('zoom attendees truncated', { eventId: inbound.id, reason: truncated });
    // The event names the host by email only; the host's own participant entry gives the name.
    const host = recording.host && hostName && !recording.host.name ? { ...recording.host, name: hostName } : recording.host;
    // A recording stored before the end rule (docs/protocols.md §8) could end before it starts: then it has no end.
    const end = endAfter(recording.start, recording.end);
    const { end: _stored, ...rest } = recording;
    // An operator's pin wins here as for every source.
    const outcome = await mapRecording({ ...rest, ...(end ? { end } : {}), ...(host ? { host } : {}), attendees }, deps, context.pin);
    return outcome.kind === 'import' && truncated !== undefined ? { ...outcome, note: truncated } : outcome;
  };
}
