import { describe, expect, it } from 'vitest';

import { postCalendarEvent } from '../calendar/support/signed-events.ts';
import { type FakeGoogle, startFakeGoogle } from '../fakes/fake-google.ts';
import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { startCalendarBridge } from '../google/support/calendar-bridge.ts';
import { meetingEvent } from '../google/support/google-setup.ts';
import { TEST_SERVICE_ACCOUNT, testKeyPair } from '../google/support/service-account-key.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { type TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * The calendar surfaces through the real startBridge wiring (not a harness that assembles the
 * pieces itself): a wiring slip in src/bridge.ts or src/job-handlers.ts fails here.
 */

const ANA = 'ana.rep@example.com';
const OPPORTUNITY = '0068d0000101XyZAAU';

const cleanups = cleanupAfterEach();

async function bridgeWith(google: FakeGoogle, momentum: FakeMomentum): Promise<TestBridge> {
  const bridge = await startCalendarBridge({ google, momentum, calendars: [ANA] });
  cleanups.push(bridge.stop);
  return bridge;
}

describe('calendar webhooks through startBridge', () => {
  it('when the bridge starts watching and Google pushes "exists" for a linked meeting, then Momentum receives the GOOGLE_CALENDAR remap', async () => {
    // Arrange
    const google = await startFakeGoogle({ serviceAccountEmail: TEST_SERVICE_ACCOUNT, publicKeyPem: testKeyPair().publicKeyPem });
    const momentum = await startFakeMomentum();
    cleanups.push(google.close, momentum.close);
    const bridge = await bridgeWith(google, momentum);
    // Channel upkeep runs in the background once the bridge listens.
    await waitFor('a watch channel at Google', () => google.channels.size > 0);
    const [channel] = [...google.channels.values()];

    // Act
    google.upsertEvent(
      ANA,
      meetingEvent('evt-1', 24, { summary: 'Pricing review', description: `https://x.lightning.force.com/lightning/r/Opportunity/${OPPORTUNITY}/view` }),
    );
    const pushed = await google.push(channel!.id, 'exists');
    const [remap] = await momentum.waitFor(1);

    // Assert
    expect(pushed).toBe(200);
    expect(channel!.address).toBe(`${bridge.url}/calendar/google/notifications`);
    expect(remap?.headers['x-api-key']).toBe('mk-test-key');
    expect(remap?.body).toMatchObject({ source: { type: 'GOOGLE_CALENDAR', id: 'evt-1' }, salesforceRecords: { opportunityId: OPPORTUNITY } });
  });

  it('when a signed generic event names an opportunity, then it is accepted with 202 and forwarded with its declared source type', async () => {
    // Arrange
    const google = await startFakeGoogle({ serviceAccountEmail: TEST_SERVICE_ACCOUNT, publicKeyPem: testKeyPair().publicKeyPem });
    const momentum = await startFakeMomentum();
    cleanups.push(google.close, momentum.close);
    const bridge = await bridgeWith(google, momentum);
    const raw = JSON.stringify({
      version: 1,
      id: 'teams-42',
      sourceType: 'MS_TEAMS',
      title: 'Globex pricing review',
      start: '2026-03-02T16:00:00Z',
      end: '2026-03-02T16:30:00Z',
      organizer: { email: ANA },
      attendees: [{ email: 'hank.buyer@globex.test' }],
      salesforce: { opportunityId: OPPORTUNITY },
    });

    // Act
    const response = await postCalendarEvent(bridge.url, raw, { id: 'msg_1' });
    const [remap] = await momentum.waitFor(1);

    // Assert
    expect(response.status).toBe(202);
    expect(remap?.body).toMatchObject({ source: { type: 'MS_TEAMS', id: 'teams-42' }, salesforceRecords: { opportunityId: OPPORTUNITY } });
  });
});
