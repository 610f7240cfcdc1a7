/**
 * The checks a form makes before it sends anything: required fields, ids, addresses, times, JSON.
 * They catch the plain mistakes early; the API's own schema stays the judge (its issues are shown
 * the same way), so nothing here has to repeat every rule it has.
 */

const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const isSalesforceId = (text) => SALESFORCE_ID.test(text);
export const isEmail = (text) => EMAIL.test(text);

export function isUrl(text) {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** A datetime-local value (local time, no offset) as ISO 8601 in UTC; undefined when empty or not a time. */
export function localToIso(text) {
  if (text === '') return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** JSON text parsed, or the parser's complaint. */
export function parseJson(text) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export const isPlainObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Collects `{path, message}` issues as the checks run. */
export function issueList() {
  /** @type {Array<{ path: string, message: string }>} */
  const issues = [];
  return {
    issues,
    add: (path, message) => void issues.push({ path, message }),
  };
}
