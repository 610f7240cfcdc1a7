import { OUTBOUND_NS, SOAP_ENVELOPE_NS } from './outbound-message.ts';

/** Content type of every reply to Salesforce: it counts anything but XML as a failed delivery. */
export const SOAP_CONTENT_TYPE = 'text/xml; charset=utf-8';

// Salesforce requires nothing before `<?xml` and exactly this Body (docs/protocols.md §2).
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
const envelope = (body: string) =>
  `${XML_DECLARATION}\n<soapenv:Envelope xmlns:soapenv="${SOAP_ENVELOPE_NS}"><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;

/** The acknowledgement: Salesforce stops redelivering the message once it gets this with a 200. */
export const ACK_ENVELOPE = envelope(`<notificationsResponse xmlns="${OUTBOUND_NS}"><Ack>true</Ack></notificationsResponse>`);

// Characters XML 1.0 cannot carry at all, even escaped; replaced so a fault is always well-formed.
// eslint-disable-next-line no-control-regex -- the control characters are exactly what this matches
const NOT_XML_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/**
 * A SOAP 1.1 fault. `Client`: the message is wrong and resending it unchanged will not help;
 * `Server`: the bridge failed and Salesforce should retry.
 */
export function soapFault(faultcode: 'Client' | 'Server', faultstring: string): string {
  return envelope(`<soapenv:Fault><faultcode>soapenv:${faultcode}</faultcode><faultstring>${escapeXml(faultstring)}</faultstring></soapenv:Fault>`);
}
