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
export function locateXmlError(xml: string): { where: string; before: string } {
  const tracker = new SaxesParser({ xmlns: true });
  let where = '';
  let before = '';
  tracker.on('error', () => {
    where = ` at line ${tracker.line}, column ${tracker.column}`;
    // saxes reports an entity's error once it has read the closing `;`: the text just before
    // the error position ends with the reference itself.
    before = xml.slice(Math.max(0, tracker.position - 16), tracker.position);
    throw new Error('located');
  });
  try {
    tracker.write(xml).close();
  } catch {
    // The throw above only stops the pass at the first error.
  }
  return { where, before };
}

// `&#0;`, `&#x0000;`: a character reference to U+0000, the one the store could never keep either.
const NUL_REFERENCE = /&#(?:0+|x0+);$/i;
const CHARACTER_REFERENCE = /&#x?[0-9a-f]{1,10};$/i;

/**
 * saxes's message with the reference it refused, when it is one: "malformed character entity"
 * alone does not say that `&#0;` (NUL) or `&#x1F;` is the culprit.
 */
export function describeXmlError(message: string, before: string): string {
  const text = message.replace(/\.$/, '');
  if (text !== 'malformed character entity') return text;
  const reference = CHARACTER_REFERENCE.exec(before)?.[0];
  if (reference === undefined) return text;
  return NUL_REFERENCE.test(reference)
    ? `character reference ${reference} is U+0000 (NUL), which XML does not allow`
    : `character reference ${reference} is not a character XML allows`;
}
