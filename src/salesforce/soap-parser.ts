import { SaxesParser, type SaxesTagNS } from 'saxes';

import { describeTextProblem, textProblem } from '../http/inbound-text.ts';
import {
  checkMessage,
  checkNotification,
  OUTBOUND_NS,
  type OutboundMessage,
  type OutboundNotification,
  type RawMessage,
  type RawNotification,
  SOAP_ENVELOPE_NS,
  soapParseError,
  SOBJECT_NS,
  XSI_NS,
} from './outbound-message.ts';
import { attribute, describeXmlError, isTrue, locateXmlError } from './xml-helpers.ts';

export { isSoapParseError, type OutboundMessage, type OutboundNotification } from './outbound-message.ts';

// An Outbound Message nests 6 deep; anything far deeper is not one, and must not grow our stack.
const MAX_DEPTH = 64;
const HEADER_ELEMENTS = new Set(['OrganizationId', 'ActionId', 'SessionId', 'EnterpriseUrl', 'PartnerUrl']);

type Frame =
  | { kind: 'envelope' | 'body' | 'notifications' | 'notification' | 'sobject' | 'skip' }
  | { kind: 'text'; target: 'header' | 'id' | 'field'; name: string; text: string; nil: boolean };

/**
 * Parses a Salesforce Outbound Message (SOAP 1.1, docs/protocols.md §2) into plain strings.
 * Hardened: a DOCTYPE is refused (so no entity is ever declared or expanded), an undefined
 * entity reference fails, values are never converted, elements are matched by namespace URI and
 * local name. Throws an AppError (400: invalid_xml, xml_dtd_refused, invalid_soap) saying what is wrong.
 */
export function parseOutboundMessage(xml: string): OutboundMessage {
  refuseUnstorableText(xml);
  // Position tracking costs a quarter of the parse time; locateXmlError recovers it for bad input only.
  const parser = new SaxesParser({ xmlns: true, position: false });
  const stack: Frame[] = [];
  const raw: RawMessage = { sawBody: false, sawNotifications: false, header: new Map(), notificationCount: 0 };
  const notifications: OutboundNotification[] = [];
  const seenIds = new Map<string, number>();
  let current: RawNotification | undefined;

  // saxes never expands a DTD, but a document carrying one is not an Outbound Message: refuse it whole.
  parser.on('doctype', () => {
    throw soapParseError('xml_dtd_refused', 'DOCTYPE declarations are not allowed; no DTD or entity is processed');
  });
  // Without a DTD only the five XML entities exist, so `&lol9;` and friends land here as "undefined entity".
  parser.on('error', (error) => {
    const { where, before } = locateXmlError(xml);
    throw soapParseError('invalid_xml', `XML is not well-formed${where}: ${describeXmlError(error.message, before)}`);
  });

  const open = (tag: SaxesTagNS): Frame => {
    const parent = stack.at(-1);
    const is = (uri: string, local: string) => tag.uri === uri && tag.local === local;
    switch (parent?.kind) {
      case undefined:
        if (!is(SOAP_ENVELOPE_NS, 'Envelope')) {
          throw soapParseError('invalid_soap', `root element is {${tag.uri}}${tag.local}; expected a SOAP 1.1 Envelope ({${SOAP_ENVELOPE_NS}}Envelope)`);
        }
        return { kind: 'envelope' };
      case 'envelope':
        if (!is(SOAP_ENVELOPE_NS, 'Body')) return { kind: 'skip' };
        if (raw.sawBody) throw soapParseError('invalid_soap', 'SOAP Envelope has more than one Body');
        raw.sawBody = true;
        return { kind: 'body' };
      case 'body':
        if (!is(OUTBOUND_NS, 'notifications')) return { kind: 'skip' };
        if (raw.sawNotifications) throw soapParseError('invalid_soap', 'SOAP Body has more than one notifications element');
        raw.sawNotifications = true;
        return { kind: 'notifications' };
      case 'notifications':
        if (is(OUTBOUND_NS, 'Notification')) {
          raw.notificationCount += 1;
          current = { index: raw.notificationCount, hasSObject: false, fields: new Map() };
          return { kind: 'notification' };
        }
        if (tag.uri !== OUTBOUND_NS || !HEADER_ELEMENTS.has(tag.local)) return { kind: 'skip' };
        if (raw.header.has(tag.local)) throw soapParseError('invalid_soap', `message has more than one ${tag.local}`);
        return { kind: 'text', target: 'header', name: tag.local, text: '', nil: isTrue(attribute(tag, XSI_NS, 'nil')) };
      case 'notification':
        return openInNotification(tag, current as RawNotification);
      case 'sobject': {
        // Fields are in the enterprise sObject namespace, whatever prefix (or default namespace) the sender bound to it.
        if (tag.uri !== SOBJECT_NS) return { kind: 'skip' };
        return { kind: 'text', target: 'field', name: tag.local, text: '', nil: isTrue(attribute(tag, XSI_NS, 'nil')) };
      }
      case 'text':
        throw soapParseError('invalid_soap', `${describe(parent)} holds an element ${tag.name}; expected text only`);
      case 'skip':
        return { kind: 'skip' };
    }
  };

  const openInNotification = (tag: SaxesTagNS, notification: RawNotification): Frame => {
    if (tag.uri === OUTBOUND_NS && tag.local === 'Id') {
      if (notification.id !== undefined) throw soapParseError('invalid_soap', `Notification ${notification.index} has more than one Id`);
      return { kind: 'text', target: 'id', name: 'Id', text: '', nil: false };
    }
    if (tag.uri !== OUTBOUND_NS || tag.local !== 'sObject') return { kind: 'skip' };
    if (notification.hasSObject) throw soapParseError('invalid_soap', `Notification ${notification.index} has more than one sObject`);
    notification.hasSObject = true;
    const type = attribute(tag, XSI_NS, 'type');
    if (type !== undefined) {
      notification.rawType = type;
      // xsi:type is a QName: its prefix is resolved in the sObject's scope, and only the local name is kept.
      const colon = type.indexOf(':');
      if (colon !== -1 && parser.resolve(type.slice(0, colon)) === undefined) {
        throw soapParseError('invalid_soap', `Notification ${notification.index} sObject xsi:type ${JSON.stringify(type)} uses an undeclared prefix`);
      }
      notification.sObjectType = type.slice(colon + 1);
    }
    return { kind: 'sobject' };
  };

  const describe = (frame: Frame & { kind: 'text' }) =>
    frame.target === 'header' ? frame.name : frame.target === 'id' ? `Notification ${current?.index} Id` : `Notification ${current?.index} field ${frame.name}`;

  parser.on('opentag', (tag) => {
    if (stack.length >= MAX_DEPTH) throw soapParseError('invalid_soap', `XML nests deeper than ${MAX_DEPTH} elements`);
    stack.push(open(tag));
  });
  const addText = (text: string) => {
    const top = stack.at(-1);
    if (top?.kind === 'text') top.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const frame = stack.pop();
    if (frame?.kind === 'notification' && current) {
      notifications.push(checkNotification(current, seenIds));
      current = undefined;
    } else if (frame?.kind === 'text') closeText(frame);
  });

  const closeText = (frame: Frame & { kind: 'text' }) => {
    if (frame.target === 'header') raw.header.set(frame.name, frame.text);
    else if (frame.target === 'id' && current) current.id = frame.text.trim();
    else if (frame.target === 'field' && current && !frame.nil) {
      // A nil field is treated like the omitted null field Salesforce normally sends (docs/protocols.md §2).
      if (current.fields.has(frame.name)) {
        throw soapParseError('invalid_soap', `Notification ${current.index} sObject has more than one ${frame.name} field`);
      }
      current.fields.set(frame.name, frame.text);
    }
  };

  parser.write(xml).close();
  return checkMessage(raw, notifications);
}

/**
 * XML 1.0 cannot carry U+0000 and saxes refuses it, but saying so plainly helps the sender, and
 * the raw message is stored as it came: the same check as every other edge, before any parsing.
 */
function refuseUnstorableText(xml: string): void {
  const problem = textProblem(xml);
  if (problem === undefined) return;
  const at = xml.indexOf('\u0000');
  const where = at === -1 ? '' : ` at line ${lineOf(xml, at)}, column ${at - xml.lastIndexOf('\n', at - 1)}`;
  throw soapParseError('invalid_xml', `XML is not well-formed${where}: the body ${describeTextProblem(problem)}`);
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}
