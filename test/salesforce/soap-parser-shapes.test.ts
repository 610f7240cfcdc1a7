import { describe, expect, it } from 'vitest';

import { parseOutboundMessage } from '../../src/salesforce/soap-parser.ts';
import {
  ACTION_ID,
  eventNotification,
  notificationId,
  notifications,
  ORG_ID,
  otherPrefixesMessage,
  outboundMessage,
} from './support/outbound-message-builder.ts';

describe('parseOutboundMessage', () => {
  describe('shapes', () => {
    it('when a message has one notification, then notifications is still a list', () => {
      const message = parseOutboundMessage(outboundMessage({ notifications: notifications(1) }));

      expect(Array.isArray(message.notifications)).toBe(true);
      expect(message.notifications.map((n) => n.id)).toEqual([notificationId(1)]);
    });

    it('when a message has 100 notifications, then all 100 come out in document order', () => {
      const message = parseOutboundMessage(outboundMessage({ notifications: notifications(100) }));

      expect(message.notifications.map((n) => n.id)).toEqual(Array.from({ length: 100 }, (_, i) => notificationId(i + 1)));
      expect(message.notifications[99]?.fields.Subject).toBe('Meeting 100');
    });

    it('when sObjects are Event, Task, Opportunity and a custom object, then xsi:type resolves to the bare type name', () => {
      const xml = outboundMessage({
        notifications: ['sf:Event', 'sf:Task', 'sf:Opportunity', 'sf:Foo__c', 'sf:acme__Bar__c'].map((type, i) => ({ ...eventNotification(i + 1), type })),
      });

      expect(parseOutboundMessage(xml).notifications.map((n) => n.sObjectType)).toEqual(['Event', 'Task', 'Opportunity', 'Foo__c', 'acme__Bar__c']);
    });

    it('when the sender uses other prefixes and a default namespace for fields, then elements are matched by namespace', () => {
      const message = parseOutboundMessage(otherPrefixesMessage(notificationId(7)));

      expect(message.organizationId).toBe(ORG_ID);
      expect(message.actionId).toBe(ACTION_ID);
      expect(message.enterpriseUrl).toBeUndefined();
      expect(message.notifications).toEqual([
        { id: notificationId(7), sObjectType: 'Event', fields: { Id: '00U8d0000101XyZEAU', Subject: 'Default namespace' } },
        { id: notificationId(7).slice(0, 15), sObjectType: 'Task', fields: { Id: '00T8d0000111XyZ', Subject: 'ns1 prefix' } },
      ]);
    });

    it('when elements carry the expected local names in another namespace, then they are not taken for fields', () => {
      const xml = outboundMessage({ notifications: [eventNotification(1)] }).replace(
        '</sObject>',
        '<x:Subject xmlns:x="urn:not-salesforce">spoofed</x:Subject><Subject>no namespace</Subject></sObject>',
      );

      expect(parseOutboundMessage(xml).notifications[0]?.fields.Subject).toBe('Meeting 1');
    });

    it('when text holds escapes, character references, CDATA and non-ASCII, then it is decoded exactly', () => {
      const xml = outboundMessage({ notifications: [eventNotification(1)] })
        .replace('<sf:Subject>Meeting 1</sf:Subject>', '<sf:Subject>R&amp;D &lt;team&gt; &#233;t&#xE9; — café 日本 &quot;q&apos;</sf:Subject>')
        .replace('</sObject>', '<sf:Description><![CDATA[a < b & c]]></sf:Description></sObject>');

      const { fields } = parseOutboundMessage(xml).notifications[0] ?? { fields: {} as Record<string, string> };

      expect(fields.Subject).toBe('R&D <team> été — café 日本 "q\'');
      expect(fields.Description).toBe('a < b & c');
    });

    it('when values look like numbers or carry spaces, then they stay the exact strings', () => {
      const xml = outboundMessage({ notifications: [eventNotification(1, { Code__c: '00123', Amount__c: '1e3', Note__c: '  padded  ', Empty__c: '' })] });

      const { fields } = parseOutboundMessage(xml).notifications[0] ?? { fields: {} as Record<string, string> };

      expect(fields).toMatchObject({ Code__c: '00123', Amount__c: '1e3', Note__c: '  padded  ', Empty__c: '' });
    });

    it('when ids are 15 characters, then they are accepted as sent', () => {
      const xml = outboundMessage({
        orgId: '00D8d0000001XyZ',
        notifications: [{ ...eventNotification(1, { WhatId: '0068d0000101XyZ' }), id: '04l8d0000101XyZ' }],
      });

      const message = parseOutboundMessage(xml);

      expect(message.organizationId).toBe('00D8d0000001XyZ');
      expect(message.notifications[0]?.id).toBe('04l8d0000101XyZ');
      expect(message.notifications[0]?.fields.WhatId).toBe('0068d0000101XyZ');
    });

    it('when a record was deleted (sObject with no fields), then the notification is valid with no fields', () => {
      const xml = outboundMessage({ notifications: [{ id: notificationId(1), type: 'sf:Event', fields: {} }] });

      expect(parseOutboundMessage(xml).notifications).toEqual([{ id: notificationId(1), sObjectType: 'Event', fields: {} }]);
    });

    it('when a field is xsi:nil, then it is omitted', () => {
      const xml = outboundMessage({ notifications: [eventNotification(1)] }).replace('</sObject>', '<sf:WhoId xsi:nil="true"/></sObject>');

      expect(parseOutboundMessage(xml).notifications[0]?.fields).not.toHaveProperty('WhoId');
    });

    it('when a field is named like an Object.prototype member, then it is plain data', () => {
      const xml = outboundMessage({ notifications: [eventNotification(1)] }).replace('</sObject>', '<sf:constructor>x</sf:constructor></sObject>');

      const { fields } = parseOutboundMessage(xml).notifications[0] ?? { fields: {} as Record<string, string> };

      expect(Object.getOwnPropertyDescriptor(fields, 'constructor')?.value).toBe('x');
    });
  });
});
