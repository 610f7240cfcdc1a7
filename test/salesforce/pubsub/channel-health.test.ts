import { describe, expect, it } from 'vitest';

import { createHealthRegistry } from '../../../src/core/health-registry.ts';
import { channelHealth } from '../../../src/salesforce/pubsub/channel-health.ts';

/*
 * The one `salesforce-pubsub` health entry over several channels (docs/operations.md, Salesforce
 * Pub/Sub): a channel that works cannot hide one that fails.
 */

describe('Pub/Sub channel health', () => {
  it('when one channel is refused and another keeps receiving keepalives, then the entry stays failing with the refusal until that channel works again', () => {
    // Arrange
    const registry = createHealthRegistry();
    registry.declare('salesforce-pubsub', { label: 'Salesforce Pub/Sub', on: true });
    const of = channelHealth(registry.report('salesforce-pubsub'));
    const [events, leads] = [of('/data/EventChangeEvent'), of('/data/LeadChangeEvent')];
    const state = () => registry.list().find((entry) => entry.name === 'salesforce-pubsub');

    // Act + Assert
    leads.failed('/data/LeadChangeEvent: PERMISSION_DENIED');
    events.ok();
    expect(state()).toMatchObject({ state: 'failing', lastError: '/data/LeadChangeEvent: PERMISSION_DENIED' });
    leads.ok();
    expect(state()?.state).toBe('on');
  });
});
