/** The attempt log keeps at most 4 KB of a response. */
export const EXCERPT_MAX_BYTES = 4096;

// Error bodies are undocumented; clients in the wild read these fields, in this order (docs/protocols.md §1).
const MESSAGE_FIELDS = ['error', 'message', 'detail', 'title'] as const;

function messageOf(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // `{"error": {"message": "…"}}` is as common as a flat `{"error": "…"}`.
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth < 2) {
    for (const field of MESSAGE_FIELDS) {
      const found = messageOf((value as Record<string, unknown>)[field], depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Cuts `text` to at most `maxBytes` of UTF-8 without splitting a character; marks the cut with `…`. */
export function truncateUtf8(text: string, maxBytes = EXCERPT_MAX_BYTES): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const ellipsis = '…';
  const budget = maxBytes - Buffer.byteLength(ellipsis, 'utf8');
  let used = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (used + size > budget) break;
    used += size;
    end += char.length;
  }
  return text.slice(0, end) + ellipsis;
}

/**
 * A short, log-safe excerpt of a response body: the `error`/`message`/`detail`/`title` field of a
 * JSON body that has one, else the body text itself; never more than 4 KB.
 */
export function errorExcerpt(body: string, maxBytes = EXCERPT_MAX_BYTES): string {
  const trimmed = body.trim();
  if (trimmed.startsWith('{')) {
    try {
      const found = messageOf(JSON.parse(trimmed));
      if (found !== undefined) return truncateUtf8(found, maxBytes);
    } catch {
      // Not JSON after all (or cut short): fall back to the text.
    }
  }
  return truncateUtf8(trimmed, maxBytes);
}
