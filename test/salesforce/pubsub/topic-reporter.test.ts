import { describe, expect, it } from 'vitest';

import { topicReporter } from '../../../src/salesforce/pubsub/topic-reporter.ts';
import { PubSubLeaseLostError, type PubSubStateNote } from '../../../src/store/pubsub-types.ts';
import { captureLogs } from '../../support/log-capture.ts';

/*
 * What one channel's subscription tells operators (docs/operations.md, Salesforce Pub/Sub): its
 * state in the cursor row, the health entry and the logs, as the lease holder only.
 */

function reporter() {
  const notes: PubSubStateNote[] = [];
  const failures: string[] = [];
  const logs = captureLogs();
  const report = topicReporter({
    store: { noteState: async (_org, _topic, note) => void notes.push(note) },
    leases: { tryLease: async () => true, releaseLease: async () => undefined },
    orgId: '00D5e000000AbCdEAK',
    topic: '/data/EventChangeEvent',
    owner: 'instance-a',
    leaseMs: 20_000,
    health: { ok: () => undefined, failed: (error) => void failures.push(error) },
    logger: logs.logger,
  });
  return { report, notes, failures, logs };
}

describe('a Pub/Sub topic reporter', () => {
  it('when a batch is refused because the lease expired meanwhile, then the lease counts as lost: no failure is reported, no state noted, and a warning says another instance streams', async () => {
    // Arrange: this instance holds the lease.
    const { report, notes, failures, logs } = reporter();
    await report.holdLease();
    const error = new PubSubLeaseLostError({ name: 'pubsub:lease', owner: 'instance-a' });

    // Act
    report.onState('resubscribing', { end: { reason: 'store-failed', error, received: 2, stored: 0 } });
    await report.settled();

    // Assert
    expect(report.holds()).toBe(false);
    expect(failures).toEqual([]);
    expect(notes).toEqual([]);
    expect(logs.lines().map((line) => line.message)).toContain('Salesforce Pub/Sub lease lost: another instance streams this channel');
  });

  it('when a batch cannot be stored for another reason, then the channel is resubscribing with that error and health says so', async () => {
    const { report, notes, failures } = reporter();
    await report.holdLease();

    report.onState('resubscribing', { end: { reason: 'store-failed', error: new Error('REQUEST_LIMIT_EXCEEDED'), received: 2, stored: 0 } });
    await report.settled();

    expect(report.holds()).toBe(true);
    expect(notes).toMatchObject([{ state: 'resubscribing', error: 'a batch could not be stored: REQUEST_LIMIT_EXCEEDED' }]);
    expect(failures).toEqual(['/data/EventChangeEvent: a batch could not be stored: REQUEST_LIMIT_EXCEEDED']);
  });
});
