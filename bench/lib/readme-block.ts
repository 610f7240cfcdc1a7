/** The README's generated benchmark section: everything between the two markers is replaced. */

export const START_MARKER = '<!-- bench:start -->';
export const END_MARKER = '<!-- bench:end -->';

/**
 * Replaces the first marked block's content and drops any later marked block (one table, never
 * two drifting copies); appends a marked block at the end when there is none.
 */
export function replaceReadmeBlock(readme: string, content: string): string {
  const block = `${START_MARKER}\n${content.trim()}\n${END_MARKER}`;
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER, start);
  if (start === -1 || end === -1) return `${readme.trimEnd()}\n\n${block}\n`;
  const rest = readme.slice(end + END_MARKER.length);
  return readme.slice(0, start) + block + dropBlocks(rest);
}

function dropBlocks(text: string): string {
  const start = text.indexOf(START_MARKER);
  const end = start === -1 ? -1 : text.indexOf(END_MARKER, start);
  if (end === -1) return text;
  const before = text.slice(0, start).trimEnd();
  const after = text.slice(end + END_MARKER.length).trimStart();
  return dropBlocks(after === '' ? `${before}\n` : `${before}\n\n${after}`);
}
