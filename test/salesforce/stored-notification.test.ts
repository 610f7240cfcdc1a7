import { describe, expect, it } from 'vitest';

import { salesforceRecordKey, salesforceVersion, storedNotificationSchema } from '../../src/salesforce/stored-notification.ts';

const notification = {
  organizationId: '00D8d0000001XyZEAU',
  actionId: '04k8d0000001AbCAAU',
  notificationId: '04l8d0000001AbCAAU',
  sObjectType: 'Event',
  fields: { Id: '00U8d000001AbCdEAK', SystemModstamp: '2026-03-02T16:00:05.000Z', LastModifiedDate: '2026-03-02T16:00:00.000Z' },
};

describe('the stored Salesforce notification', () => {
  it('when a row was written before the schema carried a version, then it reads as version 1', () => {
    expect(storedNotificationSchema.parse(notification)).toEqual({ version: 1, ...notification });
  });

  it('when a row names a version this build does not know, then it is refused rather than misread', () => {
    expect(storedNotificationSchema.safeParse({ ...notification, version: 2 }).success).toBe(false);
  });

  it('when the 15- or 18-character id is stored, then both name one record', () => {
    const short = { ...notification, fields: { ...notification.fields, Id: '00U8d000001AbCd' } };
    expect(salesforceRecordKey(notification)).toBe('Event:00U8d000001AbCd');
    expect(salesforceRecordKey(short)).toBe(salesforceRecordKey(notification));
    expect(salesforceRecordKey({ calendar: true })).toBeUndefined();
  });

  it('when SystemModstamp is present, then it is the version; else LastModifiedDate; else none', () => {
    const parsed = storedNotificationSchema.parse(notification);
    expect(salesforceVersion(parsed)).toBe(Date.parse('2026-03-02T16:00:05.000Z'));
    expect(salesforceVersion({ ...parsed, fields: { LastModifiedDate: '2026-03-02T16:00:00.000Z' } })).toBe(Date.parse('2026-03-02T16:00:00.000Z'));
    expect(salesforceVersion({ ...parsed, fields: {} })).toBeUndefined();
  });
});
