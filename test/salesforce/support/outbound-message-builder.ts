import { escapeXml } from '../../../src/salesforce/soap-replies.ts';

/** Builds Outbound Message XML for tests, shaped like the captures in test/fixtures/salesforce/. */

export const ORG_ID = '00D8d0000001XyZEAU';
export const ACTION_ID = '04k8d0000001XyZAAU';

export interface NotificationSpec {
  id: string;
  /** The xsi:type value as written, e.g. `sf:Event`; `null` leaves the attribute out. */
  type?: string | null;
  fields?: Record<string, string>;
  /** Leave the sObject element out entirely. */
  noSObject?: boolean;
}

/** An 18-character notification id, distinct per `n` (0–999). */
export function notificationId(n: number): string {
  return `04l8d0000${String(n).padStart(3, '0')}XyZAAU`;
}

export function eventNotification(n: number, fields: Record<string, string> = {}): NotificationSpec {
  return {
    id: notificationId(n),
    type: 'sf:Event',
    fields: { Id: `00U8d0000${String(n).padStart(3, '0')}XyZEAU`, Subject: `Meeting ${n}`, StartDateTime: '2026-03-02T16:00:00.000Z', ...fields },
  };
}

export function notifications(count: number): NotificationSpec[] {
  return Array.from({ length: count }, (_, index) => eventNotification(index + 1));
}

function notificationXml(spec: NotificationSpec): string {
  if (spec.noSObject) return `<Notification><Id>${spec.id}</Id></Notification>`;
  const type = spec.type === null ? '' : ` xsi:type="${spec.type ?? 'sf:Event'}"`;
  const fields = Object.entries(spec.fields ?? {})
    .map(([name, value]) => `<sf:${name}>${escapeXml(value)}</sf:${name}>`)
    .join('');
  return `<Notification><Id>${spec.id}</Id><sObject${type} xmlns:sf="urn:sobject.enterprise.soap.sforce.com">${fields}</sObject></Notification>`;
}

export interface MessageSpec {
  /** `null` leaves OrganizationId out. */
  orgId?: string | null;
  notifications: NotificationSpec[];
}

export function outboundMessage(spec: MessageSpec): string {
  const org = spec.orgId === null ? '' : `<OrganizationId>${spec.orgId ?? ORG_ID}</OrganizationId>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    '<soapenv:Body><notifications xmlns="http://soap.sforce.com/2005/09/outbound">',
    `${org}<ActionId>${ACTION_ID}</ActionId><SessionId xsi:nil="true"/>`,
    '<EnterpriseUrl>https://example-dev-ed.my.salesforce.com/services/Soap/c/62.0/00D8d0000001XyZ</EnterpriseUrl>',
    '<PartnerUrl>https://example-dev-ed.my.salesforce.com/services/Soap/u/62.0/00D8d0000001XyZ</PartnerUrl>',
    ...spec.notifications.map(notificationXml),
    '</notifications></soapenv:Body></soapenv:Envelope>',
  ].join('\n');
}

/** The same Event message written with other prefixes: `s:` envelope, `o:` outbound, default-namespace fields. */
export function otherPrefixesMessage(id: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">
 <s:Body>
  <o:notifications xmlns:o="http://soap.sforce.com/2005/09/outbound">
   <o:OrganizationId>${ORG_ID}</o:OrganizationId>
   <o:ActionId>${ACTION_ID}</o:ActionId>
   <o:Notification>
    <o:Id>${id}</o:Id>
    <o:sObject i:type="Event" xmlns="urn:sobject.enterprise.soap.sforce.com">
     <Id>00U8d0000101XyZEAU</Id>
     <Subject>Default namespace</Subject>
    </o:sObject>
   </o:Notification>
   <o:Notification>
    <o:Id>${id.slice(0, 15)}</o:Id>
    <o:sObject i:type="ns1:Task" xmlns:ns1="urn:sobject.enterprise.soap.sforce.com">
     <ns1:Id>00T8d0000111XyZ</ns1:Id>
     <ns1:Subject>ns1 prefix</ns1:Subject>
    </o:sObject>
   </o:Notification>
  </o:notifications>
 </s:Body>
</s:Envelope>`;
}

/** Classic XXE: an external entity pointing at a local file. */
export const XXE_MESSAGE = outboundMessage({ notifications: [eventNotification(1, { Subject: '__XXE__' })] })
  .replace('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>')
  .replace('__XXE__', '&xxe;');

/** Billion laughs: nine levels of ten-fold entity expansion. */
export const BILLION_LAUGHS_MESSAGE = (() => {
  const levels = ['<!ENTITY lol0 "lol">'];
  for (let level = 1; level <= 9; level++) levels.push(`<!ENTITY lol${level} "${`&lol${level - 1};`.repeat(10)}">`);
  return outboundMessage({ notifications: [eventNotification(1, { Subject: '__BOMB__' })] })
    .replace('<?xml version="1.0" encoding="UTF-8"?>', `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE lolz [ ${levels.join(' ')} ]>`)
    .replace('__BOMB__', '&lol9;');
})();
