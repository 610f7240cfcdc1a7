/**
 * Text the bridge refuses at every edge, before anything is stored. PostgreSQL cannot store
 * U+0000 in text at all (`invalid byte sequence for encoding "UTF8": 0x00`), and an unpaired
 * UTF-16 surrogate reaches either engine as U+FFFD, so the value kept would not be the value
 * sent. Acknowledging such input would leave a message that is stored on one engine and not the
 * other, or a job that fails on every retry: the sender gets a 400 naming the field instead.
 * JSON nested absurdly deep is refused too: storing it serialises it recursively, and a value
 * thousands of levels deep overflows the stack (a 500 instead of a 400).
 */

export type TextProblem = 'nul' | 'lone_surrogate';

/** JSON deeper than this is refused; no body the bridge takes nests more than a few levels. */
export const MAX_JSON_DEPTH = 64;

const PROBLEM_TEXT: Record<TextProblem, string> = {
  nul: 'holds U+0000 (NUL), which cannot be stored',
  lone_surrogate: 'holds an unpaired UTF-16 surrogate, which is not Unicode text',
};

/** What is wrong with one string, if anything. */
export function textProblem(text: string): TextProblem | undefined {
  if (text.includes('\u0000')) return 'nul';
  if (!text.isWellFormed()) return 'lone_surrogate';
  return undefined;
}

/** "holds U+0000 (NUL), which cannot be stored": the end of a sentence naming the field. */
export const describeTextProblem = (problem: TextProblem): string => PROBLEM_TEXT[problem];

export interface UnstorableValue {
  /** Where, as zod writes paths: `meeting.attendees.0.name`; `(root)` for the value itself. */
  path: string;
  /** What is wrong there, without the path: `holds U+0000 (NUL), which cannot be stored`. */
  message: string;
}

// A sender's key can be any length: a path names it by its first characters only.
const SEGMENT_MAX = 40;
const PATH_MAX = 200;
const segment = (key: string | number) => (typeof key === 'string' && key.length > SEGMENT_MAX ? `${key.slice(0, SEGMENT_MAX)}…` : String(key));

/** A value met on the walk; its path is rebuilt from the parent links only when it is reported. */
interface Node {
  value: unknown;
  key: string | number | undefined;
  parent: Node | undefined;
  depth: number;
}

function pathOf(node: Node): string {
  const keys: Array<string | number> = [];
  for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
  if (keys.length === 0) return '(root)';
  const text = keys.reverse().map(segment).join('.');
  return text.length > PATH_MAX ? `${text.slice(0, PATH_MAX)}…` : text;
}

/**
 * The first string (value or object key, at any depth) of a parsed JSON value that cannot be
 * stored, or the first level nested deeper than MAX_JSON_DEPTH. Iterative, so the walk itself
 * never runs out of stack whatever the input, and linear in the size of the value.
 */
export function findUnstorable(value: unknown): UnstorableValue | undefined {
  const pending: Node[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const current = node.value;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem !== undefined) return { path: pathOf(node), message: PROBLEM_TEXT[problem] };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (node.depth >= MAX_JSON_DEPTH) return { path: pathOf(node), message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
    const entries: Array<[string | number, unknown]> = Array.isArray(current)
      ? current.map((entry: unknown, index) => [index, entry])
      : Object.entries(current);
    for (const [key] of entries) {
      const problem = typeof key === 'string' ? textProblem(key) : undefined;
      if (problem !== undefined) return { path: pathOf(node), message: `has a key that ${PROBLEM_TEXT[problem]}` };
    }
    // Pushed in reverse, so the first problem in document order is the one reported.
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, entry] = entries[index]!;
      pending.push({ value: entry, key, parent: node, depth: node.depth + 1 });
    }
  }
  return undefined;
}

// C0 controls (tab included), DEL and the C1 controls a header can carry as obs-text bytes.
// eslint-disable-next-line no-control-regex -- the control characters are exactly what this matches
const CONTROL_CHARACTER = /[\u0000-\u001F\u007F-\u009F]/;

/** A header value is printable text: Node already refuses most controls, but lets tab and 0x80-0x9F through. */
export const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);
