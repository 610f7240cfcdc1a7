/**
 * SVG nodes built like el() builds HTML ones: attributes set one by one, text as text, so a chart
 * needs no markup string and no inline style (the page's CSP allows neither).
 */
const SVG_NS = 'http://www.w3.org/2000/svg';

/** @param {string} tag @param {Record<string, unknown>} [attributes] @param {...(Node | string | null | undefined | false | Array<any>)} children */
export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}
