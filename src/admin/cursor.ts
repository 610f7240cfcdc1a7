import { AppError } from '../core/errors.ts';
import type { ListPosition } from '../store/types.ts';

/** Opaque page cursors: the keyset position (time, id) of a page's last row, base64url-encoded. */

export function encodeCursor(position: ListPosition): string {
  return Buffer.from(`${position.at}.${position.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): ListPosition | undefined {
  if (cursor === undefined) return undefined;
  const match = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new AppError('invalid_cursor', 'cursor is not one this API handed out; start again without it', { status: 400 });
  return { at: Number(match[1]), id: Number(match[2]) };
}

/** A page from `limit + 1` rows: the extra row only tells whether another page exists. */
export function pageOf<T, V>(rows: T[], limit: number, position: (row: T) => ListPosition, view: (row: T) => V): { items: V[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items: items.map(view), nextCursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null };
}
