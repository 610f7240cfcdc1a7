import { describe, expect, it } from 'vitest';

import { classifySalesforceId, idChecksum, isSalesforceId, normalizeSalesforceId } from '../../src/mapping/salesforce-ids.ts';

describe('salesforce-ids', () => {
  // Pairs from protocols.md §2 and the sample messages, plus hand-worked ones: in each block of 5,
  // an uppercase letter at position j sets bit 1 << j; the block value indexes A–Z0–5.
  const knownPairs: Array<[string, string]> = [
    ['0065w000023STAm', '0065w000023STAmAAO'], // protocols.md example
    ['0068d0000101XyZ', '0068d0000101XyZAAU'], // event-opportunity.xml WhatId: X (bit 4) + Z (bit 16) = 20 → U
    ['00D8d0000001XyZ', '00D8d0000001XyZEAU'], // the sample org: D at position 2 → 4 → E
    ['00Q8d0000111XyZ', '00Q8d0000111XyZEAU'], // task-leads-batch.xml WhoId
    ['abcdefghijklmno', 'abcdefghijklmnoAAA'], // no uppercase → 0 → A
    ['ABCDEFGHIJKLMNO', 'ABCDEFGHIJKLMNO555'], // all uppercase → 31 → 5
    ['AbCdEaBcDeAbCdE', 'AbCdEaBcDeAbCdEVKV'], // 1+4+16 = 21 → V; 2+8 = 10 → K
  ];

  it.each(knownPairs)('when the 15-character id %s is normalised, then it becomes %s', (id15, id18) => {
    expect(normalizeSalesforceId(id15)).toBe(id18);
    expect(idChecksum(id15)).toBe(id18.slice(15));
  });

  it.each(knownPairs)('when the 18-character form of %s is normalised, then it is kept as it is', (_id15, id18) => {
    expect(normalizeSalesforceId(id18)).toBe(id18);
  });

  it('when an id is surrounded by whitespace, then the whitespace is dropped', () => {
    expect(normalizeSalesforceId(' 0065w000023STAm\n')).toBe('0065w000023STAmAAO');
  });

  it.each([
    ['an 18-character id whose checksum does not match', '0065w000023STAmAAA'],
    ['an 18-character id whose case was changed', '0065W000023STAmAAO'],
    ['a lower-cased checksum', '0065w000023STAmaao'],
    ['16 characters', '0065w000023STAmA'],
    ['14 characters', '0065w000023STA'],
    ['punctuation', '0065w000023-TAm'],
    ['an empty string', ''],
  ])('when the text is %s, then it is not a Salesforce id', (_case, text) => {
    expect(normalizeSalesforceId(text)).toBeUndefined();
    expect(isSalesforceId(text)).toBe(false);
  });

  it.each([
    ['0068d0000101XyZAAU', 'opportunity'],
    ['0018d0000101XyZAAU', 'account'],
    ['00Q8d0000111XyZEAU', 'lead'],
  ] as const)('when %s is classified, then it is an %s id', (id, kind) => {
    expect(classifySalesforceId(id)).toBe(kind);
  });

  it.each([
    ['a Contact (003)', '0038d0000101XyZAAU'],
    ['a User (005)', '0058d0000101XyZAAU'],
    ['an Event (00U)', '00U8d0000101XyZEAU'],
    ['a lead prefix in the wrong case (00q)', '00q8d0000111XyZAAU'],
  ])('when the id is %s, then it is not classified', (_case, id) => {
    expect(classifySalesforceId(id)).toBeUndefined();
  });
});
