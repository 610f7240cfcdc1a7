/**
 * Whether a write failed because the database refuses these values (so writing them again can
 * never succeed), as opposed to the database being unreachable or busy (worth trying again).
 * PostgreSQL: SQLSTATE classes 22 data exception (U+0000 in text, a number out of range),
 * 23 integrity constraint violation, 54 program limit exceeded (an index row over the btree
 * maximum). SQLite (node:sqlite errors carry `errcode`): SQLITE_TOOBIG 18, SQLITE_CONSTRAINT 19
 * (with its extended codes), SQLITE_MISMATCH 20, SQLITE_RANGE 25.
 */
export function isValueRefusal(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof errcode === 'number') return [18, 19, 20, 25].includes(errcode & 0xff);
  return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}
