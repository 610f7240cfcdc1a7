import { idChecksum } from '../../src/mapping/salesforce-ids.ts';
import { CALENDAR_SOURCE_TYPES, COMPANY_COUNT, companyName, FIRST_NAMES, LAST_NAMES, QUALIFIERS, REP_COUNT, SELLER_DOMAIN, TOPICS } from './words.ts';

/**
 * The values one event of the year carries, each a pure function of its index: the same N gives
 * the same store on every run and on both engines. A meeting's identity (title, people, records,
 * start) comes from its identity index; what belongs to one delivery of it (notification or
 * webhook id, when it arrived) from the event's own index, so an update of a meeting is a second
 * event with the first one's identity.
 */

const DAY_MS = 86_400_000;
export const YEAR_MS = 365 * DAY_MS;

/** A 32-bit integer hash (murmur3's finaliser) of `n` under `salt`. */
export function hash(n: number, salt: number): number {
  let x = (Math.imul(n, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca77) ^ Math.floor(n / 0x100000000)) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** 0 ≤ pick < size. */
export const pick = (n: number, salt: number, size: number): number => hash(n, salt) % size;
/** [0, 1). */
export const unit = (n: number, salt: number): number => hash(n, salt) / 0x100000000;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function base62(value: number, width: number): string {
  let text = '';
  for (let rest = Math.floor(value); rest > 0; rest = Math.floor(rest / 62)) text = BASE62[rest % 62] + text;
  return text.padStart(width, '0');
}

/** A Salesforce id as an org hands them out: key prefix, pod (`5e`), a base-62 record number; both forms. */
export function salesforceId(prefix: string, value: number, pod = '5e'): { id15: string; id18: string } {
  const id15 = `${prefix}${pod}${base62(value, 10)}`;
  return { id15, id18: id15 + idChecksum(id15) };
}

const person = (index: number) => {
  const first = FIRST_NAMES[index % FIRST_NAMES.length] as string;
  const last = LAST_NAMES[Math.floor(index / FIRST_NAMES.length) % LAST_NAMES.length] as string;
  return { name: `${first} ${last}`, local: `${first}.${last}`.toLowerCase() };
};

const rep = (index: number) => person(index * 37 + 11);
export const PEOPLE = FIRST_NAMES.length * LAST_NAMES.length;

/** Accounts are not equally busy: a few have many meetings (a skew toward low company indexes). */
export const companyOf = (identity: number): number => Math.floor(COMPANY_COUNT * unit(identity, 1) ** 2);

export function titleOf(identity: number): string {
  const company = companyName(companyOf(identity));
  const topic = TOPICS[pick(identity, 6, TOPICS.length)] as string;
  const qualifier = QUALIFIERS[pick(identity, 7, QUALIFIERS.length)] as string;
  const form = pick(identity, 8, 3);
  if (form === 0) return `${company} ${topic}`;
  if (form === 2) return `${company} / Northwind: ${topic}`;
  const title = `${qualifier} ${topic} with ${company}`.trim();
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** What stays the same across the events of one meeting. */
export interface Identity {
  title: string;
  company: string;
  domain: string;
  buyerEmail: string;
  buyerName: string;
  hostEmail: string;
  hostName: string;
  colleagueEmail: string;
  nobodyEmail: string;
  nobodyDomain: string;
  sourceType: string;
  calendarId: string;
  event: { id15: string; id18: string };
  opportunity: { id15: string; id18: string };
  secondOpportunity: { id15: string; id18: string };
  thirdOpportunity: { id15: string; id18: string };
  account: { id15: string; id18: string };
  contact: { id15: string; id18: string };
  owner: { id15: string; id18: string };
  /** Offset of the meeting's start from when its first event arrived, and its length. */
  startOffsetMs: number;
  durationMs: number;
}

export function identityOf(identity: number): Identity {
  const companyIndex = companyOf(identity);
  const company = companyName(companyIndex);
  const domain = `${company.toLowerCase()}.com`;
  const personIndex = pick(identity, 2, PEOPLE);
  const buyer = person(personIndex);
  const repIndex = pick(identity, 3, REP_COUNT);
  const host = rep(repIndex);
  const opportunity = companyIndex * 3 + pick(identity, 4, 3);
  const nobodyDomain = `${company.toLowerCase()}-mail.io`;
  return {
    title: titleOf(identity),
    company,
    domain,
    buyerEmail: `${buyer.local}@${domain}`,
    buyerName: buyer.name,
    hostEmail: `${host.local}@${SELLER_DOMAIN}`,
    hostName: host.name,
    colleagueEmail: `${rep((repIndex + 1) % REP_COUNT).local}@${SELLER_DOMAIN}`,
    nobodyEmail: `${buyer.local}@${nobodyDomain}`,
    nobodyDomain,
    sourceType: CALENDAR_SOURCE_TYPES[pick(identity, 5, CALENDAR_SOURCE_TYPES.length)] as string,
    calendarId: `AAMkAG${base62(hash(identity, 9), 6)}${base62(identity, 8)}`,
    event: salesforceId('00U', identity + 1),
    opportunity: salesforceId('006', opportunity + 1),
    secondOpportunity: salesforceId('006', companyIndex * 3 + 1),
    thirdOpportunity: salesforceId('006', companyIndex * 3 + 2),
    account: salesforceId('001', companyIndex + 1),
    contact: salesforceId('003', companyIndex * PEOPLE + personIndex + 1),
    owner: salesforceId('005', repIndex + 1),
    // Meetings are booked from a day before to two weeks after the change arrives, on the quarter hour.
    startOffsetMs: Math.round((unit(identity, 10) * 15 - 1) * 96) * (DAY_MS / 96),
    durationMs: pick(identity, 11, 2) === 0 ? 30 * 60_000 : 60 * 60_000,
  };
}

/** When event `n` of `total` arrived: spread evenly over the year that ends at `end`, in order. */
export function receivedAtOf(n: number, total: number, end: number): number {
  return Math.floor(end - YEAR_MS + ((n + unit(n, 12)) * YEAR_MS) / total);
}

/** What is the event's own: its notification or webhook id. */
export function deliveryIdsOf(n: number): { notification: { id15: string; id18: string }; webhookId: string } {
  return { notification: salesforceId('04l', n + 1), webhookId: `msg_${base62(hash(n, 13), 6)}${base62(n, 6)}` };
}
