import { byId, el } from './dom.js';

/**
 * The console's views, from one registry: each entry is a `<section id="{name}-view">` of the page
 * and, unless `tab: false`, a tab. Entries:
 *   { name, label, tab = true, load?, live?, reading? }
 * `load` runs when the view is selected; `live` and `reading` are for the live poller (live.js):
 * `live()` refreshes the view's list quietly, `reading()` names what the operator is reading there
 * (an open detail), which holds the list still. A new view is one section and one entry.
 *
 * On a wide screen the tabs are a row of buttons; on a phone (console.css) they fold behind the
 * menu button, which opens them as a list (aria-expanded; Escape closes it and gives the focus back).
 */
export function createViews(entries) {
  const bar = /** @type {HTMLElement} */ (byId('view-tabs').parentElement);
  const nav = byId('view-tabs');
  const menu = byId('views-menu');
  const current = byId('views-menu-current');
  let active = entries[0].name;

  const tabs = entries
    .filter((entry) => entry.tab !== false)
    .map((entry) =>
      el('button', {
        type: 'button',
        class: 'tab',
        dataset: { tab: entry.name },
        'aria-pressed': String(entry.name === active),
        onclick: () => select(entry.name, { fromMenu: true }),
        text: entry.label,
      }),
    );
  nav.replaceChildren(...tabs);

  function setOpen(open) {
    bar.dataset.open = String(open);
    menu.setAttribute('aria-expanded', String(open));
  }
  setOpen(false);

  menu.addEventListener('click', () => {
    const open = menu.getAttribute('aria-expanded') !== 'true';
    setOpen(open);
    if (open) /** @type {HTMLElement | null} */ (nav.querySelector('button[aria-pressed="true"]'))?.focus();
  });
  bar.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || menu.getAttribute('aria-expanded') !== 'true') return;
    setOpen(false);
    menu.focus();
  });

  function select(name, { fromMenu = false } = {}) {
    const entry = entries.find((candidate) => candidate.name === name);
    if (entry === undefined) return;
    active = name;
    for (const tab of tabs) tab.setAttribute('aria-pressed', String(tab.dataset.tab === name));
    for (const other of entries) byId(`${other.name}-view`).hidden = other.name !== name;
    // A view without a tab (a meeting's page) keeps the menu's label of the view it came from.
    if (entry.tab !== false) current.textContent = entry.label;
    if (fromMenu && menu.getAttribute('aria-expanded') === 'true') {
      setOpen(false);
      menu.focus();
    }
    void entry.load?.();
  }

  return {
    select,
    /** The entry on screen now. */
    active: () => entries.find((entry) => entry.name === active),
  };
}
