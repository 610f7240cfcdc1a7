import { randomInt } from 'node:crypto';

/**
 * Replay ids as Salesforce hands them out: opaque bytes (10 here, as seen in the wild), increasing
 * in commit order but with gaps, so a client that does arithmetic on them, reads them as a number
 * or strips "unprintable" bytes is caught. The first id already holds a 0x00 and a 0xff byte.
 */

export const REPLAY_ID_BYTES = 10;

const FIRST = 0x00ff_0000_0000_00ff_ff00n;

export interface ReplayIds {
  /** A fresh id, greater (as bytes) than every id issued before. */
  next(): Buffer;
}

export function replayIdSequence(): ReplayIds {
  let current = FIRST;
  return {
    next() {
      // Mostly small gaps, sometimes one wide enough to carry into the upper bytes.
      current += BigInt(randomInt(1, 1_000)) + (randomInt(0, 8) === 0 ? BigInt(randomInt(1, 2 ** 24)) : 0n);
      const bytes = Buffer.alloc(REPLAY_ID_BYTES);
      let rest = current;
      for (let i = REPLAY_ID_BYTES - 1; i >= 0; i -= 1) {
        bytes[i] = Number(rest & 0xffn);
        rest >>= 8n;
      }
      return bytes;
    },
  };
}

/** Replay ids order as their bytes do (all have the same length). */
export function compareReplayIds(a: Buffer, b: Buffer): number {
  return Buffer.compare(a, b);
}
