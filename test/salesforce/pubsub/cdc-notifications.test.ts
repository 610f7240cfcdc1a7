import { describe, expect, it } from 'vitest';

import { type CdcChange, type CdcContext, cdcNotifications, originClient } from '../../../src/salesforce/pubsub/cdc-notifications.ts';

/*
 * A Change Data Capture event as the Outbound Message path stores it (docs/protocols.md, Pub/Sub):
 * one notification per record, the bridge's own changes ignored, gaps and updates of mapped types
 * read through REST, an overflow re-read by entity.
 */

const CONTEXT: CdcContext = { orgId: '00D5e000000AbCdEAK', topic: '/data/EventChangeEvent', selfClientId: '3MVG9bridge', mapsType: (type) => type === 'Event' };
const COMMIT = Date.parse('2026-11-27T10:00:00.000Z');

function change(overrides: Partial<CdcChange['header']> = {}, fields: Record<string, unknown> = {}): CdcChange {
  return {
    header: {
      entityName: 'Event',
      recordIds: ['00U5e00000AbCdEEAZ'],
      changeType: 'CREATE',
      changeOrigin: 'com/salesforce/api/soap/60.0;client=SfdcInternalAPI/',
      transactionKey: '0002a1b2-c3d4',
      sequenceNumber: 1,
      commitTimestamp: COMMIT,
      ...overrides,
    },
    fields,
  };
}

describe('CDC events as stored notifications', () => {
  it('when an Event is created, then it is stored like an Outbound Message notification with its fields as text, its id and the commit time as SystemModstamp', () => {
    const outcome = cdcNotifications(
      change({}, { Subject: 'Pricing review', IsAllDayEvent: false, StartDateTime: '2026-12-01T15:00:00.000Z', Location: null }),
      CONTEXT,
    );

    expect(outcome).toEqual({
      kind: 'notifications',
      notifications: [
        {
          dedupeKey: 'salesforce-cdc:0002a1b2-c3d4:1:00U5e00000AbCdE',
          notification: {
            version: 1,
            organizationId: CONTEXT.orgId,
            actionId: '/data/EventChangeEvent',
            notificationId: 'cdc:0002a1b2-c3d4:1:00U5e00000AbCdEEAZ',
            sObjectType: 'Event',
            fields: {
              Subject: 'Pricing review',
              IsAllDayEvent: 'false',
              StartDateTime: '2026-12-01T15:00:00.000Z',
              Id: '00U5e00000AbCdEEAZ',
              SystemModstamp: '2026-11-27T10:00:00.000Z',
            },
          },
          fetch: false,
          deleted: false,
        },
      ],
    });
  });

  it('when the change came from the bridge itself, then it is ignored', () => {
    expect(cdcNotifications(change({ changeOrigin: 'com/salesforce/api/rest/62.0;client=3MVG9bridge' }), CONTEXT)).toEqual({
      kind: 'ignored',
      reason: 'made by the bridge itself (changeOrigin client=3MVG9bridge)',
    });
    expect(originClient('com/salesforce/api/rest/62.0;client=3MVG9bridge-other')).toBe('3MVG9bridge-other');
    expect(cdcNotifications(change({ changeOrigin: 'com/salesforce/api/rest/62.0;client=3MVG9bridge-other' }), CONTEXT).kind).toBe('notifications');
  });

  it('when an event names several records, then each gets its own notification and dedupe key', () => {
    const outcome = cdcNotifications(
      change({ entityName: 'Contact', recordIds: ['0035e00000AAAAAAA1', '0035e00000BBBBBBB2'] }, { Email: 'ann@globex.com' }),
      CONTEXT,
    );

    expect(outcome.kind === 'notifications' && outcome.notifications.map((n) => [n.dedupeKey, n.notification.fields.Id, n.fetch])).toEqual([
      ['salesforce-cdc:0002a1b2-c3d4:1:0035e00000AAAAA', '0035e00000AAAAAAA1', false],
      ['salesforce-cdc:0002a1b2-c3d4:1:0035e00000BBBBB', '0035e00000BBBBBBB2', false],
    ]);
  });

  it('when a mapped type is updated or any record has a gap event, then it is read through REST first; an unmapped update is not', () => {
    const fetchOf = (c: CdcChange) => {
      const outcome = cdcNotifications(c, CONTEXT);
      return outcome.kind === 'notifications' ? outcome.notifications[0]!.fetch : outcome.kind;
    };

    expect(fetchOf(change({ changeType: 'UPDATE' }, { Subject: 'New title' }))).toBe(true);
    expect(fetchOf(change({ changeType: 'GAP_UPDATE', entityName: 'Opportunity', recordIds: ['0065e00000AbCdEAAZ'] }))).toBe(true);
    expect(fetchOf(change({ changeType: 'UPDATE', entityName: 'Opportunity', recordIds: ['0065e00000AbCdEAAZ'] }, { StageName: 'Won' }))).toBe(false);
  });

  it('when a contact role is updated (its Role or IsPrimary), then it is read through REST first: the update names no OpportunityId, which re-matching needs', () => {
    const outcome = cdcNotifications(
      change({ changeType: 'UPDATE', entityName: 'OpportunityContactRole', recordIds: ['00K5e00000AbCdEEA1'] }, { IsPrimary: true }),
      CONTEXT,
    );

    expect(outcome.kind === 'notifications' && outcome.notifications[0]).toMatchObject({ fetch: true, notification: { fields: { IsPrimary: 'true' } } });
  });

  it('when a record is deleted, then it is stored with no field data (the mapping skips it) and nothing is read', () => {
    const outcome = cdcNotifications(change({ changeType: 'DELETE' }, { Subject: 'gone' }), CONTEXT);

    expect(outcome.kind === 'notifications' && outcome.notifications[0]).toMatchObject({ deleted: true, fetch: false, notification: { fields: {} } });
  });

  it('when a transaction overflowed, then the entity is to be read again around its commit; a wildcard record id names nothing to read one by one', () => {
    expect(cdcNotifications(change({ changeType: 'GAP_OVERFLOW', recordIds: ['000000000000000AAA'] }), CONTEXT)).toEqual({
      kind: 'overflow',
      entityName: 'Event',
      commitTimestamp: COMMIT,
    });
    expect(cdcNotifications(change({ recordIds: ['001*'] }), CONTEXT)).toEqual({ kind: 'ignored', reason: 'names no record id (001*)' });
  });
});
