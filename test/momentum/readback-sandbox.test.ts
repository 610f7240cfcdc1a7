import { expect, it } from 'vitest';

import { postCalendarEvent, TEAMS_MEETING, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { startTestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * Sandbox mode (no MOMENTUM_API_KEY): the built-in receiver lists what it received, so read-back
 * runs end to end with no key when it is turned on.
 */

const cleanups = cleanupAfterEach();

describeEachEngine('read-back in sandbox mode through startBridge', (engine) => {
  it('when read-back is turned on without an API key, then the sandbox lists the remapped meeting and the delivery is confirmed', async () => {
    // Arrange
    const bridge = await startTestBridge({
      engine,
      env: { MOMENTUM_READBACK: 'on', MOMENTUM_READBACK_DELAY: '100ms', CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET, INTERNAL_EMAIL_DOMAINS: 'example.com' },
    });
    cleanups.push(bridge.stop);
    const body = JSON.stringify({ ...TEAMS_MEETING, salesforce: { opportunityId: '0068d0000101XyZAAU' } });

    // Act
    expect((await postCalendarEvent(bridge.url, body, { id: 'msg_sandbox' })).status).toBe(202);
    await waitFor(
      'the remap read back',
      async () => (await queryRows(bridge.databaseUrl, 'SELECT 1 FROM delivered_meetings WHERE readback_outcome IS NOT NULL')).length > 0,
    );
    await waitSettled(bridge.databaseUrl);

    // Assert
    expect(
      bridge.logs
        .lines()
        .some((line) => line.message === 'SANDBOX MODE: MOMENTUM_API_KEY is not set, so remaps go to a built-in local receiver and are only logged'),
    ).toBe(true);
    expect(await queryRows(bridge.databaseUrl, 'SELECT kind, readback_outcome FROM delivered_meetings')).toEqual([
      { kind: 'remap', readback_outcome: 'confirmed' },
    ]);
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([
      ['map-event', 'succeeded'],
      ['remap', 'succeeded'],
      ['readback', 'succeeded'],
    ]);
  });
});
