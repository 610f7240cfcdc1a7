/** The README's generated benchmark section: everything between the two markers is replaced. */

export const START_MARKER = '<!-- bench:start -->';
export const END_MARKER = '<!-- bench:end -->';

/** Replaces the block's content; appends a marked block at the end when the markers are missing. */
export function replaceReadmeBlock(readme: string, content: string): string {
  const block = `${START_MARKER}\n${content.trim()}\n${END_MARKER}`;
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (start === -1 || end === -1 || end < start) return `${readme.trimEnd()}\n\n${block}\n`;
  return readme.slice(0, start) + block + readme.slice(end + END_MARKER.length);
}
