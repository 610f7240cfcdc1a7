import { byId, el, showStatus } from './dom.js';
import { isEmail, isSalesforceId, issueList, localToIso } from './form-checks.js';
import { checkbox, checked, field, formFooter, group, textInput, valueOf } from './form-fields.js';
import { submitChecked } from './form-issues.js';

/** Suggestions only: Momentum takes other source types as given (src/momentum/schemas.ts KNOWN_SOURCE_TYPES). */
const SOURCE_TYPES = [
  'GOOGLE_CALENDAR',
  'MS_TEAMS',
  'ZOOM',
  'GONG',
  'CHORUS',
  'OUTREACH',
  'SALESLOFT',
  'WEBEX',
  'DIALPAD',
  'AIRCALL',
  'RINGCENTRAL',
  'USER_PROVIDED',
];
const ID_FIELDS = [
  ['opportunityId', 'Opportunity id'],
  ['accountId', 'Account id'],
  ['leadId', 'Lead id'],
];

/**
 * "New remap": Momentum's remap body field by field, the flags as checkboxes (sent as query
 * parameters, as Momentum takes them). Checked before sending; on success the delivery opens.
 */
export function createRemapForm({ api, onCreated }) {
  const form = /** @type {HTMLFormElement} */ (byId('remap-form'));
  form.replaceChildren(
    group({
      id: 'remap-source',
      legend: 'Source: the meeting in its recording tool',
      path: 'source',
      hint: 'Give the source, or meeting details below, or both.',
      children: [
        field({ id: 'remap-source-id', label: 'Source id', path: 'source.id', control: textInput({ placeholder: 'the id in the source system' }) }),
        field({
          id: 'remap-source-type',
          label: 'Source type',
          path: 'source.type',
          control: textInput({ list: 'remap-source-types', placeholder: 'GOOGLE_CALENDAR' }),
        }),
        el(
          'datalist',
          { id: 'remap-source-types' },
          SOURCE_TYPES.map((type) => el('option', { value: type })),
        ),
      ],
    }),
    group({
      id: 'remap-records',
      legend: 'Salesforce records',
      path: 'salesforceRecords',
      hint: 'At least one: 15 or 18 letters and digits.',
      children: ID_FIELDS.map(([name, label]) =>
        field({
          id: `remap-${name}`,
          label,
          path: `salesforceRecords.${name}`,
          control: textInput({ placeholder: name === 'opportunityId' ? '006…' : name === 'accountId' ? '001…' : '00Q…' }),
        }),
      ),
    }),
    group({
      id: 'remap-details',
      legend: 'Meeting details',
      path: 'meetingDetails',
      children: [
        field({ id: 'remap-meeting-id', label: 'Momentum meeting id', path: 'meetingDetails.momentumMeetingId', control: textInput({ inputmode: 'numeric' }) }),
        field({ id: 'remap-title', label: 'Title', path: 'meetingDetails.title', control: textInput() }),
        field({
          id: 'remap-start',
          label: 'Start (your local time)',
          path: 'meetingDetails.startTime',
          control: el('input', { type: 'datetime-local', step: 60 }),
        }),
        field({ id: 'remap-host', label: 'Host email', path: 'meetingDetails.hostEmail', control: textInput({ type: 'email', inputmode: 'email' }) }),
      ],
    }),
    el(
      'fieldset',
      { class: 'group flags' },
      el('legend', { text: 'Flags' }),
      el(
        'div',
        { class: 'fields-grid' },
        field({ id: 'remap-trigger-summary', label: 'Trigger summary', path: 'triggerSummary', control: checkbox() }),
        field({ id: 'remap-trigger-ai', label: 'Trigger AI signals', path: 'triggerAiSignals', control: checkbox() }),
      ),
    ),
    ...formFooter({ id: 'remap', submitLabel: 'Send remap' }),
  );

  /** The request body and the checks it failed. */
  function read() {
    const { issues, add } = issueList();
    const sourceId = valueOf(form, 'remap-source-id');
    const sourceType = valueOf(form, 'remap-source-type');
    if (sourceId && !sourceType) add('source.type', 'needed with a source id');
    if (sourceType && !sourceId) add('source.id', 'needed with a source type');

    const records = {};
    for (const [name] of ID_FIELDS) {
      const value = valueOf(form, `remap-${name}`);
      if (value === '') continue;
      if (!isSalesforceId(value)) add(`salesforceRecords.${name}`, 'expected a 15- or 18-character Salesforce id');
      records[name] = value;
    }
    if (Object.keys(records).length === 0) add('salesforceRecords', 'give at least one of opportunity, account or lead id');

    const details = {};
    const meetingId = valueOf(form, 'remap-meeting-id');
    if (meetingId !== '') {
      if (!/^[0-9]+$/.test(meetingId) || !Number.isSafeInteger(Number(meetingId))) add('meetingDetails.momentumMeetingId', 'expected a whole number');
      else details.momentumMeetingId = Number(meetingId);
    }
    const title = valueOf(form, 'remap-title');
    if (title) details.title = title;
    const start = valueOf(form, 'remap-start');
    if (start) {
      const iso = localToIso(start);
      if (iso === undefined) add('meetingDetails.startTime', 'expected a date and time');
      else details.startTime = iso;
    }
    const host = valueOf(form, 'remap-host');
    if (host) {
      if (!isEmail(host)) add('meetingDetails.hostEmail', 'expected an email address');
      details.hostEmail = host;
    }
    if (!sourceId && !sourceType && Object.keys(details).length === 0) add('source', 'a remap needs a source or meeting details');

    const body = {
      ...(sourceId || sourceType ? { source: { id: sourceId, type: sourceType } } : {}),
      salesforceRecords: records,
      ...(Object.keys(details).length ? { meetingDetails: details } : {}),
    };
    const flags = { triggerSummary: String(checked(form, 'remap-trigger-summary')), triggerAiSignals: String(checked(form, 'remap-trigger-ai')) };
    return { body, flags, issues };
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { body, flags, issues } = read();
    const answer = await submitChecked(form, { issues, send: () => api.post('meetings/remap', body, flags) });
    if (answer === undefined) return;
    form.reset();
    showStatus(`Remap #${answer.delivery.number} queued.`);
    await onCreated(answer.delivery.id);
  });
}
