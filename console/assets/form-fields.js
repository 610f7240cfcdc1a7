import { el } from './dom.js';

/**
 * Labelled form controls, each with a slot for its errors and keyed (data-path) by where its value
 * goes in the request body, so an issue the API reports at `meetingDetails.title` lands next to the
 * field that holds it (form-issues.js).
 */

/** @param {{ id: string, label: string, path: string, control: HTMLElement, hint?: string, required?: boolean, wide?: boolean }} spec */
export function field({ id, label, path, control, hint, required = false, wide = false }) {
  control.id = id;
  if (required) control.setAttribute('aria-required', 'true');
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return el(
    'div',
    { class: `field${wide ? ' wide' : ''}${control instanceof HTMLInputElement && control.type === 'checkbox' ? ' check' : ''}`, dataset: { path } },
    el('label', { for: id }, label, required ? el('span', { class: 'required', 'aria-hidden': 'true', text: ' *' }) : null),
    control,
    hint ? el('p', { id: hintId, class: 'hint', text: hint }) : null,
    el('p', { id: `${id}-error`, class: 'field-error', hidden: true }),
  );
}

/**
 * A group of fields whose rule spans them (at least one Salesforce id): its own error slot, under the legend.
 * @param {{ id: string, legend: string, path: string, hint?: string, children: Array<Node> }} spec
 */
export function group({ id, legend, path, hint, children }) {
  return el(
    'fieldset',
    { id, class: 'group', dataset: { path }, 'aria-describedby': `${id}-error` },
    el('legend', { text: legend }),
    hint ? el('p', { class: 'hint', text: hint }) : null,
    el('p', { id: `${id}-error`, class: 'field-error', hidden: true }),
    el('div', { class: 'fields-grid' }, children),
  );
}

export const textInput = (props = {}) => el('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', ...props });
export const textArea = (props = {}) => el('textarea', { rows: 8, spellcheck: 'false', ...props });
export const checkbox = (props = {}) => el('input', { type: 'checkbox', ...props });

/**
 * The form-level error list (issues at the root or at a path no field holds), and the submit row.
 * @returns {HTMLElement[]}
 */
export function formFooter({ id, submitLabel }) {
  return [
    el('div', { id: `${id}-errors`, class: 'form-errors', role: 'alert', hidden: true }),
    el('div', { class: 'actions' }, el('button', { type: 'submit', id: `${id}-submit`, text: submitLabel })),
  ];
}

/** The trimmed value of a control found by id inside `form`; '' when empty. */
export function valueOf(form, id) {
  const control = /** @type {HTMLInputElement | null} */ (form.querySelector(`#${id}`));
  return control === null ? '' : control.value.trim();
}

export function checked(form, id) {
  const control = /** @type {HTMLInputElement | null} */ (form.querySelector(`#${id}`));
  return control?.checked === true;
}
