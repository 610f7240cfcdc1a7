import { describe, expect, it } from 'vitest';

import { pubsubLeaseName } from '../../../src/salesforce/pubsub/lease-name.ts';
import { cleanupAfterEach } from '../../support/cleanups.ts';
import { openRealStore } from '../../support/real-store.ts';
import { describeEachEngine, queryRows } from '../../support/stored-state.ts';

/*
 * The lease of a Pub/Sub subscription: one singleton lease per (org, topic), so two instances
 * never subscribe to the same channel of an org while each may hold a different one.
 */

const cleanups = cleanupAfterEach();
const ORG = '00D8d0000001XyZEAU';
const T0 = 1_700_000_000_000;

describe('pubsubLeaseName', () => {
  it('when an org and a channel are named, then the lease name holds both, prefixed for Pub/Sub', () => {
    expect(pubsubLeaseName(ORG, '/data/OpportunityChangeEvent')).toBe('salesforce-pubsub:00D8d0000001XyZEAU:/data/OpportunityChangeEvent');
  });
});

describeEachEngine('Pub/Sub subscription leases', (engine) => {
  it('when two instances race for the same subscription, then one holds it, the other holds another topic, and the first is free once released', async () => {
    // Arrange
    const real = await openRealStore(engine, 'pubsub-lease');
    cleanups.push(real.close);
    const opportunities = pubsubLeaseName(ORG, '/data/OpportunityChangeEvent');
    const leads = pubsubLeaseName(ORG, '/data/LeadChangeEvent');
    const { channels } = real.store;

    // Act
    const a = await channels.tryLease(opportunities, 'instance-a', 60_000, T0);
    const b = await channels.tryLease(opportunities, 'instance-b', 60_000, T0 + 1);
    const bOther = await channels.tryLease(leads, 'instance-b', 60_000, T0 + 1);

    // Assert
    expect([a, b, bOther]).toEqual([true, false, true]);
    expect(await queryRows(real.url, 'SELECT name, owner FROM singleton_leases ORDER BY name')).toEqual([
      { name: leads, owner: 'instance-b' },
      { name: opportunities, owner: 'instance-a' },
    ]);
    await channels.releaseLease(opportunities, 'instance-a');
    expect(await channels.tryLease(opportunities, 'instance-b', 60_000, T0 + 2)).toBe(true);
  });
});
