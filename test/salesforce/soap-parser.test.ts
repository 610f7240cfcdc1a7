import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { AppError } from '../../src/core/errors.ts';
import { parseOutboundMessage } from '../../src/salesforce/soap-parser.ts';
import {
  ACTION_ID,
  BILLION_LAUGHS_MESSAGE,
  eventNotification,
  notificationId,
  notifications,
  ORG_ID,
  otherPrefixesMessage,
  outboundMessage,
  XXE_MESSAGE,
} from './support/outbound-message-builder.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/salesforce/${name}`, import.meta.url), 'utf8');

/** Runs the parser and returns the AppError it throws. */
function parseError(xml: string): AppError {
  try {
    parseOutboundMessage(xml);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the parser to throw');
}

describe('parseOutboundMessage', () => {
  describe('samples', () => {
    it('when given event-opportunity.xml, then every field comes out as the exact string sent', () => {
      const message = parseOutboundMessage(fixture('event-opportunity.xml'));

      expect(message).toEqual({
        organizationId: '00D8d0000001XyZEAU',
        actionId: '04k8d0000001XyZAAU',
        enterpriseUrl: 'https://example-dev-ed.my.salesforce.com/services/Soap/c/62.0/00D8d0000001XyZ',
        partnerUrl: 'https://example-dev-ed.my.salesforce.com/services/Soap/u/62.0/00D8d0000001XyZ',
        notifications: [
          {
            id: '04l8d0000101XyZAAU',
            sObjectType: 'Event',
            fields: {
              Id: '00U8d0000101XyZEAU',
              AccountId: '0018d0000101XyZAAU',
              EndDateTime: '2026-03-02T16:30:00.000Z',
              OwnerId: '0058d0000101XyZAAU',
              StartDateTime: '2026-03-02T16:00:00.000Z',
              Subject: 'Pricing review with Globex',
              WhatId: '0068d0000101XyZAAU',
              WhoId: '0038d0000101XyZAAU',
            },
          },
        ],
      });
    });

    it('when given opportunity.xml, then numbers, dates and booleans stay text and &amp; is decoded', () => {
      const [notification] = parseOutboundMessage(fixture('opportunity.xml')).notifications;

      expect(notification?.sObjectType).toBe('Opportunity');
      expect(notification?.fields).toEqual({
        Id: '0068d0000120XyZAAU',
        AccountId: '0018d0000120XyZAAU',
        Amount: '45000.0',
        CloseDate: '2026-06-30',
        IsClosed: 'false',
        Name: 'Initech renewal & upsell',
        StageName: 'Negotiation',
      });
    });

    it('when given task-leads-batch.xml, then its three Task notifications come out in order', () => {
      const message = parseOutboundMessage(fixture('task-leads-batch.xml'));

      expect(message.notifications.map((n) => [n.id, n.sObjectType, n.fields.Subject, n.fields.WhoId])).toEqual([
        ['04l8d0000111XyZAAU', 'Task', 'Intro call 1', '00Q8d0000111XyZEAU'],
        ['04l8d0000112XyZAAU', 'Task', 'Intro call 2', '00Q8d0000112XyZEAU'],
        ['04l8d0000113XyZAAU', 'Task', 'Intro call 3', '00Q8d0000113XyZEAU'],
      ]);
    });

    it('when given foreign-org.xml, then it parses (the org check is the route’s job) with its own org id', () => {
      const message = parseOutboundMessage(fixture('foreign-org.xml'));

      expect(message.organizationId).toBe('00D8d0000999XyZEAU');
      expect(message.notifications).toHaveLength(1);
    });
  });

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

  describe('refusals', () => {
    const valid = () => outboundMessage({ notifications: notifications(1) });

    it.each([
      ['an external entity (XXE)', XXE_MESSAGE],
      ['a billion-laughs entity bomb', BILLION_LAUGHS_MESSAGE],
      ['a DOCTYPE without entities', valid().replace('<soapenv:Envelope', '<!DOCTYPE soapenv:Envelope>\n<soapenv:Envelope')],
    ])('when the message carries %s, then it is refused without expanding anything', (_name, xml) => {
      const error = parseError(xml);

      expect(error.code).toBe('xml_dtd_refused');
      expect(error.status).toBe(400);
      expect(error.message).toBe('DOCTYPE declarations are not allowed; no DTD or entity is processed');
    });

    it('when text references an undefined entity, then it is refused as not well-formed', () => {
      const error = parseError(valid().replace('Meeting 1', 'Meeting &lol9;'));

      expect(error.code).toBe('invalid_xml');
      expect(error.message).toMatch(/^XML is not well-formed at line \d+, column \d+: undefined entity$/);
    });

    it.each([
      ['truncated XML', valid().slice(0, 400), /^XML is not well-formed at line \d+, column \d+: unclosed tag/],
      ['a JSON body', '{"OrganizationId":"00D8d0000001XyZEAU"}', /^XML is not well-formed at line 1, column \d+: text data outside of root node$/],
      ['an empty document', '', /^XML is not well-formed .*: document must contain a root element$/],
    ])('when given %s, then it is refused as invalid_xml with the position', (_name, xml, message) => {
      const error = parseError(xml);

      expect(error.code).toBe('invalid_xml');
      expect(error.message).toMatch(message);
    });

    const cases: Array<[string, () => string, string]> = [
      [
        'the root is not a SOAP Envelope',
        () => '<Envelope><Body/></Envelope>',
        'root element is {}Envelope; expected a SOAP 1.1 Envelope ({http://schemas.xmlsoap.org/soap/envelope/}Envelope)',
      ],
      ['the Envelope has no Body', () => '<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"/>', 'SOAP Envelope has no Body'],
      [
        'the Body has no notifications',
        () => valid().replaceAll('notifications', 'other'),
        'SOAP Body has no notifications element in namespace http://soap.sforce.com/2005/09/outbound',
      ],
      ['OrganizationId is missing', () => outboundMessage({ orgId: null, notifications: notifications(1) }), 'message has no OrganizationId'],
      ['OrganizationId is empty', () => outboundMessage({ orgId: '', notifications: notifications(1) }), 'message has no OrganizationId'],
      [
        'OrganizationId is malformed',
        () => outboundMessage({ orgId: '00D-bad', notifications: notifications(1) }),
        'OrganizationId "00D-bad" is not a 15- or 18-character Salesforce id',
      ],
      [
        'OrganizationId appears twice',
        () => valid().replace('<ActionId>', `<OrganizationId>${ORG_ID}</OrganizationId><ActionId>`),
        'message has more than one OrganizationId',
      ],
      ['ActionId is missing', () => valid().replace(/<ActionId>.*<\/ActionId>/, ''), 'message has no ActionId'],
      ['there is no Notification', () => outboundMessage({ notifications: [] }), 'message has no Notification; expected 1 to 100'],
      ['there are 101 notifications', () => outboundMessage({ notifications: notifications(101) }), 'message has 101 notifications; at most 100 allowed'],
      [
        'Notification 3 has no sObject',
        () => outboundMessage({ notifications: [...notifications(2), { id: notificationId(3), noSObject: true }] }),
        'Notification 3 has no sObject',
      ],
      ['a Notification has no Id', () => valid().replace(/<Id>04l[^<]*<\/Id>/, ''), 'Notification 1 has no Id'],
      [
        'a Notification Id is 16 characters',
        () => outboundMessage({ notifications: [{ ...eventNotification(1), id: '04l8d0000101XyZA' }] }),
        'Notification 1 Id "04l8d0000101XyZA" is not a 15- or 18-character Salesforce id',
      ],
      [
        'two Notifications share an Id',
        () => outboundMessage({ notifications: [eventNotification(1), eventNotification(2), eventNotification(1)] }),
        `Notification 3 repeats the Id ${notificationId(1)} of Notification 1`,
      ],
      [
        'an sObject has no xsi:type',
        () => outboundMessage({ notifications: [{ ...eventNotification(1), type: null }] }),
        'Notification 1 sObject has no xsi:type',
      ],
      [
        'xsi:type uses an undeclared prefix',
        () => outboundMessage({ notifications: [{ ...eventNotification(1), type: 'zz:Event' }] }),
        'Notification 1 sObject xsi:type "zz:Event" uses an undeclared prefix',
      ],
      [
        'xsi:type is not a type name',
        () => outboundMessage({ notifications: [{ ...eventNotification(1), type: 'sf:1-bad' }] }),
        'Notification 1 sObject xsi:type "sf:1-bad" is not an sObject type name',
      ],
      [
        'a field holds an element',
        () => valid().replace('<sf:Subject>Meeting 1', '<sf:Subject><sf:Inner>x</sf:Inner>'),
        'Notification 1 field Subject holds an element sf:Inner; expected text only',
      ],
      [
        'a field appears twice',
        () => valid().replace('</sObject>', '<sf:Subject>again</sf:Subject></sObject>'),
        'Notification 1 sObject has more than one Subject field',
      ],
      [
        'a Notification has two sObjects',
        () => valid().replace('</Notification>', '<sObject xsi:type="Event"/></Notification>'),
        'Notification 1 has more than one sObject',
      ],
      [
        'elements nest 65 deep',
        () => valid().replace('</notifications>', `</notifications>${'<x>'.repeat(70)}${'</x>'.repeat(70)}`),
        'XML nests deeper than 64 elements',
      ],
    ];
    it.each(cases)('when %s, then it is refused as invalid_soap saying exactly that', (_name, xml, message) => {
      const error = parseError(xml());

      expect(error.code).toBe('invalid_soap');
      expect(error.status).toBe(400);
      expect(error.message).toBe(message);
    });
  });
});
