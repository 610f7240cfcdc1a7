import { list } from './setting-kinds.ts';

/**
 * The words a configuration problem uses for what was given. A secret's value is never shown,
 * only its length (and which entry of a list); a password inside a URL (DATABASE_URL) is masked.
 */
export function givenValue(value: string | undefined, options: { secret: boolean; entry?: number }): string {
  if (value === undefined) return 'it is not set';
  if (!options.secret) return `got ${JSON.stringify(withoutPassword(value))}`;
  if (options.entry === undefined) return `got ${value.length} characters (not shown: secret)`;
  const entries = list(value);
  const length = entries[options.entry]?.length ?? 0;
  return `entry ${options.entry + 1} of ${entries.length} has ${length} characters (not shown: secret)`;
}

/** `postgres://user:pw@host/db` → `postgres://user:***@host/db`; other text unchanged. */
export function withoutPassword(text: string): string {
  return text.replace(/(\/\/[^/?#@:\s]*:)[^/?#@\s]*@/g, '$1***@');
}
