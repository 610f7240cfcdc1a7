import { describe, expect, it } from 'vitest';

import { ACK_ENVELOPE, escapeXml, soapFault } from '../../src/salesforce/soap-replies.ts';
import { soapLeaves as leaves } from './support/soap-reply-reader.ts';

describe('soap replies', () => {
  it('when acknowledging, then the envelope starts with the XML declaration and holds notificationsResponse/Ack true', () => {
    expect(ACK_ENVELOPE.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(ACK_ENVELOPE).toContain('<notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse>');
    expect(leaves(ACK_ENVELOPE)).toEqual({ '{http://soap.sforce.com/2005/09/outbound}Ack': 'true' });
  });

  it('when building a client fault, then faultcode is soapenv:Client and the faultstring round-trips escaped', () => {
    const fault = soapFault('Client', 'Notification 1 Id "<&>\'" is bad');

    expect(fault.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(fault).toContain('&lt;&amp;&gt;&apos;');
    expect(leaves(fault)).toEqual({ '{}faultcode': 'soapenv:Client', '{}faultstring': 'Notification 1 Id "<&>\'" is bad' });
  });

  it('when building a server fault, then faultcode is soapenv:Server', () => {
    expect(leaves(soapFault('Server', 'not stored'))['{}faultcode']).toBe('soapenv:Server');
  });

  it('when the text holds characters XML cannot carry, then they are replaced and the fault stays well-formed', () => {
    const fault = soapFault('Client', 'bad \u0000\u0007 byte 日本');

    expect(leaves(fault)['{}faultstring']).toBe('bad \uFFFD\uFFFD byte 日本');
    expect(escapeXml('a\tb\nc')).toBe('a\tb\nc');
  });
});
