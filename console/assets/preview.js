import { byId, el, fields, pretty } from './dom.js';
import { isPlainObject, issueList, parseJson } from './form-checks.js';
import { field, formFooter, textArea, textInput, valueOf } from './form-fields.js';
import { submitChecked } from './form-issues.js';
import { whyThisRecord } from './match-view.js';

const MODES = [
  { value: 'salesforce', label: 'Salesforce Outbound Message (SOAP XML)' },
  { value: 'calendar', label: 'Signed calendar body (JSON)' },
  { value: 'event', label: 'A stored inbound event' },
];
/** Refusals about the pasted payload as a whole: shown next to it. */
const PAYLOAD_CODES = new Set(['invalid_xml', 'xml_dtd_refused', 'invalid_soap', 'org_not_allowed', 'unmappable', 'invalid_payload']);

const prefixed = (prefix, path) => {
  const text = String(path ?? '')
    .replace(/^\$\.?/, '')
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/^\./, '');
  if (text === '' || text === '(root)') return prefix;
  // The calendar body's issues already name their place under payload.
  return text === prefix || text.startsWith(`${prefix}.`) ? text : `${prefix}.${text}`;
};

/** A preview refusal as issues at the form's fields: the mapping file's problems at the mapping, the payload's at the payload. */
function issuesOf(error) {
  const details = error.details;
  const message = error instanceof Error ? error.message : String(error);
  const read = (list, prefix) =>
    list.map((item) =>
      typeof item === 'string' ? { path: prefix, message: item } : { path: prefixed(prefix, item.path), message: String(item.message ?? item) },
    );
  if (Array.isArray(details)) return details;
  if (Array.isArray(details?.problems)) return read(details.problems, 'mapping');
  if (Array.isArray(details?.issues)) return read(details.issues, 'payload');
  if (error.code === 'invalid_mapping') return [{ path: 'mapping', message }];
  if (PAYLOAD_CODES.has(error.code)) return [{ path: 'payload', message }];
  if (error.code === 'not_found' || error.code === 'no_mapper') return [{ path: 'eventId', message }];
  return undefined;
}

const sameResult = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function resultCard(result, heading) {
  if (result === undefined) return el('article', { class: 'result missing' }, el('p', { class: 'muted', text: `${heading}: no result for this record.` }));
  return el(
    'article',
    { class: `result result-${result.outcome}`, dataset: { outcome: result.outcome, rule: result.rule } },
    el(
      'header',
      { class: 'result-head' },
      el('span', { class: 'result-source muted small', text: heading }),
      el('span', { class: `outcome outcome-${result.outcome}`, dataset: { field: 'outcome' }, text: result.outcome }),
      ' ',
      el('code', { dataset: { field: 'rule' }, text: result.rule }),
    ),
    fields([
      ['Notification', result.notificationId],
      ['Flags', result.flags ? `triggerSummary=${result.flags.triggerSummary}, triggerAiSignals=${result.flags.triggerAiSignals}` : undefined],
      ['Reason', result.reason],
    ]),
    result.request === undefined ? null : el('pre', { dataset: { field: 'request' }, text: pretty(result.request) }),
    // The match record this mapping would store: the same "why this record" a delivery's page shows.
    result.match === undefined ? null : whyThisRecord(result.match),
  );
}

/**
 * "Preview mapping": paste an Outbound Message or a signed calendar body, or name a stored event,
 * optionally with a proposed mapping file, and see what the rules in force and the proposed ones
 * make of it, record by record side by side. The API stores and sends nothing for a preview.
 */
export function createPreview({ api }) {
  const form = /** @type {HTMLFormElement} */ (byId('preview-form'));
  const results = byId('preview-results');
  const payload = textArea({ rows: 12, placeholder: '<?xml version="1.0" encoding="UTF-8"?>\n<soapenv:Envelope …' });
  const eventId = textInput({ inputmode: 'numeric', size: 10 });
  const payloadField = field({ id: 'preview-payload', label: 'Outbound Message', path: 'payload', control: payload, wide: true });
  const eventField = field({ id: 'preview-event', label: 'Inbound event id', path: 'eventId', control: eventId });
  const radios = MODES.map((mode) =>
    el(
      'label',
      { class: 'choice' },
      el('input', { type: 'radio', name: 'preview-mode', value: mode.value, id: `preview-mode-${mode.value}`, checked: mode.value === 'salesforce' }),
      ` ${mode.label}`,
    ),
  );

  form.replaceChildren(
    el(
      'fieldset',
      { class: 'group', dataset: { path: 'source' } },
      el('legend', { text: 'What to map' }),
      el('p', { class: 'field-error', id: 'preview-source-error', hidden: true }),
      el('div', { class: 'choices' }, radios),
    ),
    payloadField,
    eventField,
    field({
      id: 'preview-mapping',
      label: 'Proposed mapping file (optional, JSON)',
      path: 'mapping',
      control: textArea({ rows: 8, placeholder: '{"sObjects": {"Event": {"triggerSummary": true}}}' }),
      hint: 'The JSON of a MAPPING_FILE. Given, its results are shown beside those of the rules in force.',
      wide: true,
    }),
    ...formFooter({ id: 'preview', submitLabel: 'Preview' }),
  );

  const mode = () => /** @type {HTMLInputElement} */ (form.querySelector('input[name="preview-mode"]:checked'))?.value ?? 'salesforce';
  function showMode() {
    const current = mode();
    payloadField.hidden = current === 'event';
    eventField.hidden = current !== 'event';
    const label = payloadField.querySelector('label');
    if (label) label.textContent = current === 'calendar' ? 'Signed calendar body (JSON object)' : 'Outbound Message (SOAP XML)';
    payload.placeholder =
      current === 'calendar' ? '{"kind": "meeting", "id": "…", "title": "…"}' : '<?xml version="1.0" encoding="UTF-8"?>\n<soapenv:Envelope …';
  }
  for (const radio of form.querySelectorAll('input[name="preview-mode"]')) radio.addEventListener('change', showMode);
  showMode();

  function read() {
    const { issues, add } = issueList();
    const current = mode();
    /** @type {Record<string, unknown>} */
    let body;
    if (current === 'event') {
      const text = valueOf(form, 'preview-event');
      if (!/^[1-9][0-9]*$/.test(text)) add('eventId', 'expected the number of an inbound event');
      body = { eventId: Number(text) };
    } else {
      const text = payload.value.trim();
      if (text === '') add('payload', current === 'salesforce' ? 'paste the Outbound Message XML' : 'paste the signed body (JSON)');
      if (current === 'salesforce') {
        if (text !== '' && !text.startsWith('<')) add('payload', 'expected XML, starting with <');
        body = { source: 'salesforce', payload: text };
      } else {
        const parsed = text === '' ? { ok: true, value: {} } : parseJson(text);
        if (!parsed.ok) add('payload', parsed.message);
        else if (!isPlainObject(parsed.value)) add('payload', 'expected a JSON object');
        body = { source: 'calendar', payload: parsed.ok ? parsed.value : {} };
      }
    }
    const mappingText = valueOf(form, 'preview-mapping');
    if (mappingText) {
      const mapping = parseJson(mappingText);
      if (!mapping.ok) add('mapping', mapping.message);
      else if (!isPlainObject(mapping.value)) add('mapping', 'expected a mapping file: a JSON object');
      else body.mapping = mapping.value;
    }
    return { body, issues };
  }

  function render(answer) {
    const proposed = answer.proposed?.results;
    const count = Math.max(answer.results.length, proposed?.length ?? 0);
    const rows = Array.from({ length: count }, (_, index) => {
      const current = answer.results[index];
      const next = proposed?.[index];
      const changed = proposed !== undefined && !sameResult(current, next);
      return el(
        'div',
        { class: `compare-row${changed ? ' changed' : ''}`, dataset: { index, changed: proposed === undefined ? undefined : String(changed) } },
        resultCard(current, 'Rules in force'),
        proposed === undefined ? null : resultCard(next, changed ? 'Proposed file (differs)' : 'Proposed file (same)'),
      );
    });
    results.replaceChildren(
      el(
        'p',
        { class: 'summary', dataset: { count } },
        `${count} ${count === 1 ? 'record' : 'records'} from ${answer.source}. `,
        proposed === undefined
          ? 'Rules in force only (no proposed file given).'
          : `${rows.filter((row) => row.classList.contains('changed')).length} differ under the proposed file.`,
        el('span', { class: 'muted', text: ' Nothing was stored or sent to Momentum.' }),
      ),
      el(
        'div',
        { class: `compare${proposed === undefined ? ' single' : ''}`, id: 'preview-compare' },
        el(
          'div',
          { class: 'compare-head', 'aria-hidden': 'true' },
          el('h3', { text: 'Rules in force' }),
          proposed === undefined ? null : el('h3', { text: 'Proposed mapping file' }),
        ),
        rows,
      ),
    );
    results.dataset.loaded = 'true';
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { body, issues } = read();
    delete results.dataset.loaded;
    const answer = await submitChecked(form, { issues, send: () => api.post('mapping/preview', body), issuesOf });
    if (answer === undefined) {
      results.replaceChildren();
      return;
    }
    render(answer);
  });

  return {
    /** Opens the form on a stored event (from the Inbound events view). */
    forEvent(id) {
      const radio = /** @type {HTMLInputElement} */ (form.querySelector('#preview-mode-event'));
      radio.checked = true;
      showMode();
      eventId.value = String(id);
      eventId.focus();
    },
  };
}
