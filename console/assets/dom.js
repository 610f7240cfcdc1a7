/**
 * Building DOM nodes without HTML strings: every value from the API goes in as text, so nothing it
 * holds can become markup (the page also enforces Trusted Types, which refuses HTML string sinks).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name === 'text') node.textContent = String(value);
    else if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export const byId = (id) => {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`#${id} is missing from the page`);
  return node;
};

export const stateBadge = (state) => el('span', { class: `state state-${state}`, dataset: { field: 'state' }, text: state });

export function formatTime(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function formatAge(ms) {
  if (ms === null || ms === undefined) return '—';
  const seconds = Math.round(ms / 1000);
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} d`;
}

export const pretty = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** A definition list from [label, value] pairs; values may be nodes. */
export function fields(pairs) {
  return el(
    'dl',
    { class: 'fields' },
    pairs.flatMap(([label, value]) => [el('dt', { text: label }), el('dd', {}, value ?? '—')]),
  );
}

export function showStatus(message, { error = false } = {}) {
  const status = byId('status');
  status.textContent = message;
  status.classList.toggle('error', error);
}

/**
 * Runs an action, showing its failure on the status line instead of losing it in the console. An
 * aborted request is no failure: the operator asked for something newer, which answers instead.
 */
export async function attempt(action) {
  try {
    return await action();
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') return undefined;
    showStatus(error instanceof Error ? error.message : String(error), { error: true });
    return undefined;
  }
}

/**
 * Gives every cell of a table its column's header as `data-label` (a phone shows rows as cards,
 * each value under its label) and its `data-optional` mark (columns dropped while a detail is open
 * beside the list).
 */
export function labelCells(table) {
  const headers = [...table.querySelectorAll('thead th')];
  for (const row of table.querySelectorAll('tbody tr')) {
    [...row.children].forEach((cell, index) => {
      const header = headers[index];
      if (header === undefined || cell.hasAttribute('colspan')) return;
      cell.setAttribute('data-label', header.textContent ?? '');
      if (header.hasAttribute('data-optional')) cell.setAttribute('data-optional', '');
    });
  }
}

/**
 * What an operator calls a delivery: its gap-free number (docs/admin-api.md, "Delivery numbers"),
 * never the job id that the API's paths take. An internal job has no number and keeps its id.
 */
export const deliveryNo = (job) => (job.number === null || job.number === undefined ? `job ${job.id}` : `#${job.number}`);
