import type { Response } from 'express';

/**
 * What a route or error handler tells the refusal recorder (record-refusals.ts) about a reply:
 * the error code it answered with, or the reasons of the items it refused inside a batch (Graph
 * sends many notifications in one request; an item with a forged clientState is refused alone).
 */

interface RefusalLocals {
  refusalCode?: string;
  refusedItems?: string[];
}

const locals = (res: Response) => res.locals as RefusalLocals;

/** The error code a refused request was answered with. */
export function noteRefusalCode(res: Response, code: string): void {
  locals(res).refusalCode = code;
}

/** The reasons items of a batch were refused for (those counted above zero); they replace the reply's own code. */
export function noteRefusedItems(res: Response, refused: Record<string, number>): void {
  const reasons = Object.entries(refused)
    .filter(([, count]) => count > 0)
    .map(([reason]) => reason);
  if (reasons.length > 0) locals(res).refusedItems = reasons;
}

/** The reasons to count for a finished reply: the items' reasons, else the code, else none. */
export function notedReasons(res: Response): string[] {
  const { refusalCode, refusedItems } = locals(res);
  if (refusedItems !== undefined) return refusedItems;
  return refusalCode === undefined ? [] : [refusalCode];
}
