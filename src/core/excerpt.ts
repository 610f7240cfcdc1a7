/**
 * A sender's value as it may appear in a reply or a log line: at most `max` characters, cut
 * with an ellipsis. Whatever a request carries (a 16 kB header, a 100 kB XML name), no line the
 * bridge writes about it grows with it.
 */
export function excerpt(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The excerpt in double quotes, escaped as JSON, so control characters and quotes stay visible. */
export const quoted = (text: string, max = 80): string => JSON.stringify(excerpt(text, max));
