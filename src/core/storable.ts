/**
 * Values that arrive from an upstream API the sender cannot fix (a Zoom participant's display
 * name, a Graph event's subject, a Salesforce field read by a lookup) are made storable instead of
 * refused: PostgreSQL keeps no U+0000 in text or in `jsonb` (`unsupported Unicode escape
 * sequence`), and an unpaired UTF-16 surrogate reaches either engine as U+FFFD. So U+0000 is
 * removed and unpaired surrogates become U+FFFD here, once, before the value is stored, and both
 * engines keep the same text. Inbound bodies are not cleaned: they are refused at the edge
 * (src/http/inbound-text.ts), since their sender can send them again correctly.
 */

/** The text as both engines will store it. */
export function storableText(text: string): string {
  const withoutNul = text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
  return withoutNul.isWellFormed() ? withoutNul : withoutNul.toWellFormed();
}

/**
 * A JSON-like value with every string (values and object keys, at any depth) made storable.
 * Returns the same value when nothing needed changing, so the common case allocates nothing.
 */
export function storableValue<T>(value: T): T {
  return clean(value, 0) as T;
}

// Upstream answers nest a few levels; past this the value is returned as it is (the edge refuses deeper input).
const MAX_DEPTH = 64;

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let changed: unknown[] | undefined;
    value.forEach((entry: unknown, index) => {
      const next = clean(entry, depth + 1);
      if (next !== entry) (changed ??= [...value])[index] = next;
    });
    return changed ?? value;
  }
  let changed = false;
  const entries = Object.entries(value).map(([key, entry]) => {
    const nextKey = storableText(key);
    const next = clean(entry, depth + 1);
    if (nextKey !== key || next !== entry) changed = true;
    return [nextKey, next] as const;
  });
  return changed ? Object.fromEntries(entries) : value;
}
