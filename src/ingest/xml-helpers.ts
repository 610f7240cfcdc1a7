import { SaxesParser, type SaxesTagNS } from 'saxes';

/** xsd:boolean true. */
export const isTrue = (value: string | undefined) => value === 'true' || value === '1';

/** The value of the attribute `{uri}local` on a tag, whatever its prefix. */
export function attribute(tag: SaxesTagNS, uri: string, local: string): string | undefined {
  // for…in over the (usually empty) attribute map: this runs for every field and must not allocate.
  for (const name in tag.attributes) {
    const attr = tag.attributes[name];
    if (attr?.uri === uri && attr.local === local) return attr.value;
  }
  return undefined;
}

/** Where the first well-formedness error is: a second pass with position tracking, paid only for bad input. */
export function locateXmlError(xml: string): string {
  const tracker = new SaxesParser({ xmlns: true });
  let where = '';
  tracker.on('error', () => {
    where = ` at line ${tracker.line}, column ${tracker.column}`;
    throw new Error('located');
  });
  try {
    tracker.write(xml).close();
  } catch {
    // The throw above only stops the pass at the first error.
  }
  return where;
}
