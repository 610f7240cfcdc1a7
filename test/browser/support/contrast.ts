import type { Page } from 'playwright-core';

/**
 * Visible text below WCAG AA: 4.5:1 against the colour behind it (3:1 from 24 px, or 18.66 px
 * bold). The background is the nearest opaque one up the tree; disabled controls are exempt.
 */
export const lowContrastText = (page: Page) =>
  page.evaluate(() => {
    const rgb = (text: string) => (text.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const f = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const backgroundOf = (node: Element | null): number[] => {
      for (let at = node; at; at = at.parentElement) {
        const colour = rgb(getComputedStyle(at).backgroundColor);
        if (colour.length === 3 || (colour[3] ?? 0) > 0.5) return colour;
      }
      return [255, 255, 255];
    };
    const found = new Set<string>();
    for (const node of document.querySelectorAll('body *')) {
      if (!(node instanceof HTMLElement) || node.closest(':disabled, svg, [hidden]') || node.getClientRects().length === 0) continue;
      const text = [...node.childNodes]
        .filter((child) => child.nodeType === Node.TEXT_NODE)
        .map((child) => child.textContent?.trim() ?? '')
        .join('');
      if (text === '') continue;
      const style = getComputedStyle(node);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const [a, b] = [luminance(rgb(style.color)), luminance(backgroundOf(node))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < (large ? 3 : 4.5)) found.add(`contrast ${ratio.toFixed(2)}:1 for "${text.slice(0, 30)}" (${style.color} on ${backgroundOf(node).join(',')})`);
    }
    return [...found];
  });
