/** Posts an Outbound Message to a listening bridge as Salesforce does (SOAP 1.1 over HTTP); `headers` add to or override those. */
export function postOutboundMessage(url: string, xml: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/salesforce/outbound-message`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml; charset=UTF-8', soapaction: '""', ...headers },
    body: xml,
  });
}
