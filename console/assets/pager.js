import { byId } from './dom.js';

/**
 * Keyset paging: the API hands out a cursor for the next (older) page; going back to newer pages
 * replays the cursors seen so far.
 */
export function createPager(prefix, load) {
  const newer = /** @type {HTMLButtonElement} */ (byId(`${prefix}-newer`));
  const older = /** @type {HTMLButtonElement} */ (byId(`${prefix}-older`));
  const label = byId(`${prefix}-page`);
  let cursors = [undefined];
  let page = 0;
  let next = null;

  const render = () => {
    newer.disabled = page === 0;
    older.disabled = next === null;
    label.textContent = `page ${page + 1}`;
  };
  newer.addEventListener('click', () => {
    if (page === 0) return;
    page -= 1;
    void load();
  });
  older.addEventListener('click', () => {
    if (next === null) return;
    cursors = cursors.slice(0, page + 1).concat(next);
    page += 1;
    void load();
  });

  return {
    cursor: () => cursors[page],
    /** After a page arrived: remember where the next one starts. */
    loaded(nextCursor) {
      next = nextCursor;
      render();
    },
    reset() {
      cursors = [undefined];
      page = 0;
      next = null;
    },
  };
}
