import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import fc from 'fast-check';

import {
  BILLION_LAUGHS_MESSAGE,
  eventNotification,
  otherPrefixesMessage,
  outboundMessage,
  XXE_MESSAGE,
} from '../../salesforce/support/outbound-message-builder.ts';

/**
 * Hostile Outbound Message bodies for property-based fuzzing: real captures and built messages,
 * mutated the ways attackers and broken senders do (byte flips, truncation, DTDs and entities,
 * huge attributes, random unicode, wrong namespaces, deep nesting, repeated notifications).
 */

const fixtureDir = path.resolve(import.meta.dirname, '../../fixtures/salesforce');
const SEEDS: readonly string[] = [
  ...readdirSync(fixtureDir)
    .filter((name) => name.endsWith('.xml'))
    .map((name) => readFileSync(path.join(fixtureDir, name), 'utf8')),
  outboundMessage({ notifications: [eventNotification(7), eventNotification(8)] }),
  otherPrefixesMessage('04l8d0000101XyZAAU'),
  XXE_MESSAGE,
  BILLION_LAUGHS_MESSAGE,
];

const OUTBOUND_NS = 'http://soap.sforce.com/2005/09/outbound';
const ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

type Mutation = (body: Buffer) => Buffer;
type TextMutation = (xml: string) => string;

/** Most mutations work on text; a byte flip before them may have left invalid UTF-8 (decoded as U+FFFD). */
const onText =
  (mutate: TextMutation): Mutation =>
  (body) =>
    Buffer.from(mutate(body.toString('utf8')), 'utf8');

const at = (xml: string, fraction: number) => Math.floor(fraction * xml.length);
const insertAt = (xml: string, fraction: number, text: string) => xml.slice(0, at(xml, fraction)) + text + xml.slice(at(xml, fraction));
const afterDeclaration = (xml: string, text: string) => (xml.startsWith('<?xml') ? xml.replace(/\?>/, `?>${text}`) : text + xml);

const fraction = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  // Byte flips and truncation work on the bytes: they may split a UTF-8 sequence.
  fc.tuple(fraction, fc.integer({ min: 0, max: 255 })).map(([where, byte]): Mutation => (body) => {
    const bytes = Buffer.from(body);
    if (bytes.length > 0) bytes[Math.min(bytes.length - 1, Math.floor(where * bytes.length))] = byte;
    return bytes;
  }),
  fraction.map(
    (where): Mutation =>
      (body) =>
        body.subarray(0, Math.floor(where * body.length)),
  ),
  fc
    .constantFrom<TextMutation>(
      (xml) => afterDeclaration(xml, '<!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>').replace('</sf:Id>', '&xxe;</sf:Id>'),
      (xml) => afterDeclaration(xml, '<!DOCTYPE d [ <!ENTITY e "expanded"> ]>'),
      (xml) => afterDeclaration(xml, '<!DOCTYPE d SYSTEM "http://169.254.169.254/latest/meta-data/">'),
      (xml) => xml.replace('</sf:Subject>', '&lol9;</sf:Subject>'),
      (xml) => xml.replace('</sf:Subject>', '&#0;&#xD800;</sf:Subject>'),
      (xml) => xml.replace('<sf:Subject>', '<sf:Subject><![CDATA[<Notification><Id>04l8d0000999XyZAAU</Id>]]>'),
      (xml) => xml.replaceAll(OUTBOUND_NS, 'http://soap.sforce.com/2005/09/outbound2'),
      (xml) => xml.replaceAll(ENVELOPE_NS, 'http://www.w3.org/2003/05/soap-envelope'),
      (xml) => xml.replace(/xmlns:sf="[^"]*"/g, ''),
      (xml) => xml.replace(/<Notification>[\s\S]*?<\/Notification>/, (n) => n + n),
      (xml) => xml.replace(/<Notification>[\s\S]*?<\/Notification>/, (n) => n.repeat(101)),
      (xml) => xml.replace('</sf:Subject>', `${'<a>'.repeat(2000)}${'</a>'.repeat(2000)}</sf:Subject>`),
      (xml) => xml.replace(/<\/[A-Za-z:]+>$/, ''),
      (xml) => xml.replace(/<OrganizationId>[^<]*<\/OrganizationId>/, '<OrganizationId><x/></OrganizationId>'),
      (xml) => xml.replace(/xsi:type="[^"]*"/, 'xsi:type="sf:Evil Type"'),
      // Past SALESFORCE_MAX_BODY (2 MB by default): refused before it is parsed.
      (xml) => xml.replace('</sf:Subject>', `${'x'.repeat(2_200_000)}</sf:Subject>`),
    )
    .map(onText),
  fc.tuple(fraction, fc.integer({ min: 1_000, max: 200_000 })).map(([where, size]) =>
    onText((xml) => {
      const tags = [...xml.matchAll(/<[A-Za-z][^\s/>]*/g)];
      const tag = tags[Math.floor(where * tags.length)];
      if (tag?.index === undefined) return xml;
      const end = tag.index + tag[0].length;
      return `${xml.slice(0, end)} huge="${'A'.repeat(size)}"${xml.slice(end)}`;
    }),
  ),
  fc.tuple(fraction, fc.string({ unit: 'binary', minLength: 1, maxLength: 64 })).map(([where, text]) => onText((xml) => insertAt(xml, where, text))),
  fc
    .tuple(fraction, fc.constantFrom('<', '>', '&', '"', "'", ']]>', '<?pi x?>', '<!-- c -->', '\u0000', '\uFEFF', '\uD800'))
    .map(([where, text]) => onText((xml) => insertAt(xml, where, text))),
);

/** A seed message (bytes) with one to three mutations applied. */
export const hostileXml: fc.Arbitrary<Buffer> = fc
  .tuple(fc.constantFrom(...SEEDS), fc.array(mutation, { minLength: 1, maxLength: 3 }))
  .map(([seed, mutations]) => mutations.reduce<Buffer>((body, mutate) => mutate(body), Buffer.from(seed, 'utf8')));

/** Bodies that are not XML at all: random bytes, JSON, an empty body. */
export const notXml: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
  fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  fc.constant(Buffer.alloc(0)),
);
