/**
 * Problems with a form's input shown where they are: next to the field whose data-path is the
 * issue's path (or the nearest enclosing group), else in the form's own error list. The same
 * `{path, message}` shape serves the checks made before sending and the zod issues the API
 * answers a 400 with (`error.details`).
 */

/** @param {HTMLFormElement} form */
export function clearIssues(form) {
  for (const slot of form.querySelectorAll('.field-error')) {
    slot.replaceChildren();
    /** @type {HTMLElement} */ (slot).hidden = true;
  }
  for (const control of form.querySelectorAll('[aria-invalid]')) control.removeAttribute('aria-invalid');
  for (const holder of form.querySelectorAll('.invalid')) holder.classList.remove('invalid');
  const list = /** @type {HTMLElement | null} */ (form.querySelector('.form-errors'));
  if (list) {
    list.replaceChildren();
    list.hidden = true;
  }
}

/** The element holding the issue's path: the field itself, else the closest group above it. */
function holderOf(form, path) {
  const segments = path === '' || path === '(root)' ? [] : path.split('.');
  for (let length = segments.length; length > 0; length -= 1) {
    const prefix = segments.slice(0, length).join('.');
    const holder = [...form.querySelectorAll('[data-path]')].find((node) => /** @type {HTMLElement} */ (node).dataset.path === prefix);
    if (holder) return /** @type {HTMLElement} */ (holder);
  }
  return null;
}

/**
 * @param {HTMLFormElement} form
 * @param {Array<{ path: string, message: string }>} issues
 * @returns {number} how many were shown next to a field (the rest went to the form's list)
 */
export function showIssues(form, issues) {
  const list = /** @type {HTMLElement | null} */ (form.querySelector('.form-errors'));
  let placed = 0;
  let firstControl = null;
  for (const issue of issues) {
    const holder = holderOf(form, issue.path ?? '');
    const slot = holder?.querySelector(':scope > .field-error');
    if (holder && slot) {
      const line = document.createElement('span');
      line.textContent = holder.dataset.path === issue.path ? issue.message : `${issue.path}: ${issue.message}`;
      if (slot.childNodes.length) slot.append(document.createElement('br'));
      slot.append(line);
      /** @type {HTMLElement} */ (slot).hidden = false;
      holder.classList.add('invalid');
      const control = holder.matches('fieldset') ? null : holder.querySelector('input, textarea, select');
      if (control) {
        control.setAttribute('aria-invalid', 'true');
        const described = new Set((control.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean));
        described.add(slot.id);
        control.setAttribute('aria-describedby', [...described].join(' '));
      }
      firstControl ??= control ?? holder.querySelector('input, textarea, select');
      placed += 1;
    } else if (list) {
      const item = document.createElement('p');
      item.textContent = issue.path && issue.path !== '(root)' ? `${issue.path}: ${issue.message}` : issue.message;
      list.append(item);
      list.hidden = false;
    }
  }
  /** @type {HTMLElement | null} */ (firstControl)?.focus();
  return placed;
}

/**
 * One submission: the form's own checks first (nothing is sent while any fails), then the call;
 * a 400 from the API puts its zod issues (`error.details`) next to the fields, any other failure
 * goes to the form's error list. Answers the API's reply, or undefined when nothing was accepted.
 *
 * `issuesOf` reads a refusal whose details are shaped otherwise (or that names no field) into issues.
 *
 * @param {HTMLFormElement} form
 * @param {{ issues: Array<{ path: string, message: string }>, send: () => Promise<any>, issuesOf?: (error: any) => Array<{ path: string, message: string }> | undefined }} submission
 */
export async function submitChecked(form, { issues, send, issuesOf }) {
  clearIssues(form);
  if (issues.length) {
    showIssues(form, issues);
    form.dataset.outcome = 'invalid';
    return undefined;
  }
  const submit = /** @type {HTMLButtonElement | null} */ (form.querySelector('button[type="submit"]'));
  if (submit) submit.disabled = true;
  form.dataset.outcome = 'sending';
  try {
    const answer = await send();
    form.dataset.outcome = 'accepted';
    return answer;
  } catch (error) {
    const details = /** @type {{ details?: unknown, status?: number }} */ (error).details;
    const fromApi = issuesOf?.(error) ?? (Array.isArray(details) ? details.filter((issue) => typeof issue?.message === 'string') : []);
    showIssues(form, fromApi.length ? fromApi : [{ path: '', message: error instanceof Error ? error.message : String(error) }]);
    form.dataset.outcome = 'refused';
    return undefined;
  } finally {
    if (submit) submit.disabled = false;
  }
}
