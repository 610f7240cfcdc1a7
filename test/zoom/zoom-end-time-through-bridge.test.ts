import { expect, it } from 'vitest';

import { recordingCompletedEvent, sendEvent, ZOOM_UUIDS, type ZoomRecordingFile } from '../fakes/fake-zoom.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import { meetingOf, SECRET, startZoomBridge, storedEvents } from './support/zoom-bridge.ts';

/*
 * When a Zoom import ends, on both engines: the latest recording file's end, unless that is not
 * after the meeting's start (Zoom's clocks, a file from an earlier session of the uuid); then the
 * start plus Zoom's duration; with no duration either, no endTime at all. An import never ends
 * before it starts.
 */

const cleanups = cleanupAfterEach();
const START = '2026-03-02T16:00:00Z';

/** A recording file of the meeting, from `start` to `end`. */
const file = (start: string, end: string): ZoomRecordingFile => ({
  ...recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }).payload.object.recording_files[0]!,
  recording_start: start,
  recording_end: end,
});

describeEachEngine('the end of a Zoom import through startBridge', (engine) => {
  it.each([
    ['the files end after the start', 30, '2026-03-02T16:29:41.000Z', [file(START, '2026-03-02T16:29:41Z')]],
    ['the latest file ends before the start', 30, '2026-03-02T16:30:00.000Z', [file('2026-03-02T15:00:00Z', '2026-03-02T15:10:00Z')]],
    ['the latest file ends exactly at the start', 45, '2026-03-02T16:45:00.000Z', [file('2026-03-02T15:50:00Z', START)]],
    ['there are no files', 20, '2026-03-02T16:20:00.000Z', []],
  ])('when %s (duration %s minutes), then endTime is %s', async (_case, duration, endTime, files) => {
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups, { zoomApi: false });

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain, start_time: START, duration, recording_files: files }));

    const [sent] = await momentum.waitFor(1, 15_000);
    expect(meetingOf(sent)).toMatchObject({ startTime: '2026-03-02T16:00:00.000Z', endTime });
    await waitSettled(databaseUrl);
    expect(await storedEvents(databaseUrl)).toMatchObject([{ source: 'zoom', state: 'mapped' }]);
    await expectSettled(databaseUrl);
  });

  it('when the latest file ends before the start and Zoom says duration 0, then the import has a startTime and no endTime', async () => {
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups, { zoomApi: false });
    const files = [file('2026-03-02T15:00:00Z', '2026-03-02T15:10:00Z')];

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain, start_time: START, duration: 0, recording_files: files }));

    const [sent] = await momentum.waitFor(1, 15_000);
    expect(meetingOf(sent).startTime).toBe('2026-03-02T16:00:00.000Z');
    expect(meetingOf(sent)).not.toHaveProperty('endTime');
    await waitSettled(databaseUrl);
    await expectSettled(databaseUrl);
  });

  it('when Zoom says a duration no date can hold and no file ends after the start, then the recording is acked and imported with no endTime, never a 500', async () => {
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups, { zoomApi: false });

    const answer = await sendEvent(
      url,
      SECRET,
      recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain, start_time: START, duration: 1_000_000_000_000, recording_files: [] }),
    );

    expect(answer.status).toBe(200);
    const [sent] = await momentum.waitFor(1, 15_000);
    expect(meetingOf(sent).startTime).toBe('2026-03-02T16:00:00.000Z');
    expect(meetingOf(sent)).not.toHaveProperty('endTime');
    await waitSettled(databaseUrl);
    await expectSettled(databaseUrl);
  });
});
