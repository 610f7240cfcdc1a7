import { describe, expect, it } from 'vitest';

import {
  BILLION_LAUGHS_MESSAGE,
  eventNotification,
  notificationId,
  notifications,
  ORG_ID,
  outboundMessage,
  XXE_MESSAGE,
} from './support/outbound-message-builder.ts';
import { parseError } from './support/parse-error.ts';

describe('parseOutboundMessage', () => {
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
