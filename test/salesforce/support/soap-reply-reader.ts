import { SaxesParser } from 'saxes';

/** Reads a SOAP reply back with a namespace-aware parser: `{uri}local` → text, for every text leaf. */
export function soapLeaves(xml: string): Record<string, string> {
  const parser = new SaxesParser({ xmlns: true });
  const out: Record<string, string> = {};
  let text = '';
  parser.on('opentag', () => (text = ''));
  parser.on('text', (chunk) => (text += chunk));
  parser.on('closetag', (tag) => {
    if (text.trim() !== '') out[`{${tag.uri}}${tag.local}`] = text;
    text = '';
  });
  parser.write(xml).close();
  return out;
}

/** faultcode and faultstring of a SOAP 1.1 fault, undefined when the reply is not one. */
export function readFault(xml: string): { faultcode: string; faultstring: string } | undefined {
  const leaves = soapLeaves(xml);
  const faultcode = leaves['{}faultcode'];
  const faultstring = leaves['{}faultstring'];
  return faultcode === undefined || faultstring === undefined ? undefined : { faultcode, faultstring };
}
