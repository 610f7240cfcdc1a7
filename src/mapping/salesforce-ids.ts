/**
 * Salesforce record ids (docs/protocols.md §2 "Record ids"): 15 case-sensitive characters, or 18 with a
 * 3-character checksum that makes the id safe for case-insensitive systems. The bridge normalises
 * every id to 18 characters before comparing or forwarding it.
 */

const CHECKSUM_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const ID_15 = /^[0-9A-Za-z]{15}$/;
const ID_18 = /^[0-9A-Za-z]{15}[A-Z0-5]{3}$/;

export type RecordKind = 'opportunity' | 'account' | 'lead';

// Key prefixes are the same in every org. Only these three reach Momentum (salesforceRecords);
// Contacts (003), Users (005) and every other object are ignored.
const KIND_BY_PREFIX: Record<string, RecordKind> = { '006': 'opportunity', '001': 'account', '00Q': 'lead' };

/** The 3-character checksum of a 15-character id: one character per block of 5. */
export function idChecksum(id15: string): string {
  let checksum = '';
  for (let block = 0; block < 3; block += 1) {
    let value = 0;
    for (let j = 0; j < 5; j += 1) {
      const char = id15.charAt(block * 5 + j);
      // An uppercase letter at position j of the block sets bit 1 << j.
      if (char >= 'A' && char <= 'Z') value |= 1 << j;
    }
    checksum += CHECKSUM_ALPHABET.charAt(value);
  }
  return checksum;
}

/**
 * The 18-character form of a 15- or 18-character id, or undefined when the text is not a
 * Salesforce id (wrong length, other characters, or an 18-character id whose checksum does not
 * match its first 15 characters).
 */
export function normalizeSalesforceId(text: string): string | undefined {
  const id = text.trim();
  if (ID_15.test(id)) return id + idChecksum(id);
  if (ID_18.test(id)) {
    const id15 = id.slice(0, 15);
    return id.slice(15) === idChecksum(id15) ? id : undefined;
  }
  return undefined;
}

export function isSalesforceId(text: string): boolean {
  return normalizeSalesforceId(text) !== undefined;
}

/** Which Momentum record field an id belongs in, by its key prefix; undefined for any other object. */
export function classifySalesforceId(id: string): RecordKind | undefined {
  return KIND_BY_PREFIX[id.slice(0, 3)];
}
