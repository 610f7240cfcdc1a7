import { byId, showStatus } from './dom.js';
import { isEmail, isPlainObject, isSalesforceId, issueList, isUrl, localToIso, parseJson } from './form-checks.js';
import { checkbox, checked, field, formFooter, group, textArea, textInput, valueOf } from './form-fields.js';
import { submitChecked } from './form-issues.js';

const ATTENDEES_EXAMPLE = '[{"email": "ana@example.com", "name": "Ana", "isInternal": true}]';

/**
 * "New import": Momentum's user-provided meeting ({meeting, processImportedMeeting}) with the common
 * fields as inputs, attendees and any further meeting fields as JSON. Checked before sending; on
 * success the delivery opens.
 */
export function createImportForm({ api, onCreated }) {
  const form = /** @type {HTMLFormElement} */ (byId('import-form'));
  const text = (id, label, path, props = {}, extra = {}) => field({ id, label, path, control: textInput(props), ...extra });
  const when = (id, label, path, extra = {}) => field({ id, label, path, control: textInput({ type: 'datetime-local', step: 60 }), ...extra });
  form.replaceChildren(
    group({
      id: 'import-meeting',
      legend: 'Meeting',
      path: 'meeting',
      children: [
        text(
          'import-id',
          'Meeting id',
          'meeting.id',
          { placeholder: 'its id in the source system' },
          { required: true, hint: 'Imports of one id replace each other while queued.' },
        ),
        text('import-title', 'Title', 'meeting.title', {}, { required: true }),
        when('import-start', 'Start (your local time)', 'meeting.startTime', { required: true }),
        when('import-end', 'End (your local time)', 'meeting.endTime'),
        text('import-host-name', 'Host name', 'meeting.host.name'),
        text('import-host-email', 'Host email', 'meeting.host.email', { type: 'email', inputmode: 'email' }),
        text('import-call-url', 'Call URL', 'meeting.callUrl', { type: 'url', inputmode: 'url' }),
        text('import-recording-url', 'Recording URL', 'meeting.recordingUrl', { type: 'url', inputmode: 'url' }),
        text('import-account', 'Salesforce account id', 'meeting.salesforceAccountId', { placeholder: '001…' }),
        text('import-opportunity', 'Salesforce opportunity id', 'meeting.salesforceOpportunityId', { placeholder: '006…' }),
        field({
          id: 'import-attendees',
          label: 'Attendees (JSON array)',
          path: 'meeting.attendees',
          control: textArea({ rows: 4, placeholder: ATTENDEES_EXAMPLE }),
          hint: 'Each {email, name, isInternal}; leave empty for none.',
          wide: true,
        }),
        field({
          id: 'import-extra',
          label: 'Further meeting fields (JSON object)',
          path: 'meeting.extra',
          control: textArea({ rows: 3, placeholder: '{"durationSeconds": 1800}' }),
          hint: 'Merged into meeting as they are; the fields above win.',
          wide: true,
        }),
      ],
    }),
    field({
      id: 'import-process',
      label: 'Process the imported meeting (summary, signals)',
      path: 'processImportedMeeting',
      control: checkbox({ checked: true }),
    }),
    ...formFooter({ id: 'import', submitLabel: 'Send import' }),
  );

  function read() {
    const { issues, add } = issueList();
    const meeting = {};
    const put = (id, name, path, check, message) => {
      const value = valueOf(form, id);
      if (value === '') return;
      if (check && !check(value)) add(path, message);
      meeting[name] = value;
    };

    const extraText = valueOf(form, 'import-extra');
    if (extraText) {
      const extra = parseJson(extraText);
      if (!extra.ok) add('meeting.extra', extra.message);
      else if (!isPlainObject(extra.value)) add('meeting.extra', 'expected a JSON object: {"name": value, …}');
      else Object.assign(meeting, extra.value);
    }
    put('import-id', 'id', 'meeting.id');
    put('import-title', 'title', 'meeting.title');
    for (const [id, name, path, required] of [
      ['import-start', 'startTime', 'meeting.startTime', true],
      ['import-end', 'endTime', 'meeting.endTime', false],
    ]) {
      const value = valueOf(form, id);
      if (value === '') {
        if (required) add(path, 'required');
        continue;
      }
      const iso = localToIso(value);
      if (iso === undefined) add(path, 'expected a date and time');
      else meeting[name] = iso;
    }
    if (!meeting.id) add('meeting.id', 'required');
    if (!meeting.title) add('meeting.title', 'required');
    if (meeting.startTime && meeting.endTime && meeting.endTime <= meeting.startTime) add('meeting.endTime', 'must be after the start');

    const hostName = valueOf(form, 'import-host-name');
    const hostEmail = valueOf(form, 'import-host-email');
    if (hostEmail && !isEmail(hostEmail)) add('meeting.host.email', 'expected an email address');
    if (hostName || hostEmail) meeting.host = { ...(hostName ? { name: hostName } : {}), ...(hostEmail ? { email: hostEmail } : {}) };
    put('import-call-url', 'callUrl', 'meeting.callUrl', isUrl, 'expected an http(s) URL');
    put('import-recording-url', 'recordingUrl', 'meeting.recordingUrl', isUrl, 'expected an http(s) URL');
    put('import-account', 'salesforceAccountId', 'meeting.salesforceAccountId', isSalesforceId, 'expected a 15- or 18-character Salesforce id');
    put('import-opportunity', 'salesforceOpportunityId', 'meeting.salesforceOpportunityId', isSalesforceId, 'expected a 15- or 18-character Salesforce id');

    const attendeesText = valueOf(form, 'import-attendees');
    if (attendeesText) {
      const attendees = parseJson(attendeesText);
      if (!attendees.ok) add('meeting.attendees', attendees.message);
      else if (!Array.isArray(attendees.value) || !attendees.value.every(isPlainObject))
        add('meeting.attendees', `expected an array of objects, e.g. ${ATTENDEES_EXAMPLE}`);
      else meeting.attendees = attendees.value;
    }
    return { body: { meeting, processImportedMeeting: checked(form, 'import-process') }, issues };
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { body, issues } = read();
    const answer = await submitChecked(form, { issues, send: () => api.post('meetings/import', body) });
    if (answer === undefined) return;
    form.reset();
    showStatus(`Import #${answer.delivery.number} queued.`);
    await onCreated(answer.delivery.id);
  });

  /**
   * Fills the form from what a dead remap sent (its source id, title, start and records), so an
   * operator imports the meeting Momentum did not know after checking it, not by retyping it.
   */
  function prefill(request) {
    const details = request?.meetingDetails ?? {};
    const records = request?.salesforceRecords ?? {};
    form.reset();
    const values = {
      'import-id': request?.source?.id,
      'import-title': details.title,
      'import-start': isoToLocal(details.startTime),
      'import-end': isoToLocal(details.endTime),
      'import-opportunity': records.opportunityId,
      'import-account': records.accountId,
    };
    for (const [id, value] of Object.entries(values)) {
      if (typeof value === 'string' && value !== '') /** @type {HTMLInputElement} */ (byId(id)).value = value;
    }
  }

  return { prefill };
}

/** An ISO time as a datetime-local input takes it: the operator's local time, to the minute. */
function isoToLocal(iso) {
  const date = new Date(iso ?? '');
  if (Number.isNaN(date.getTime())) return undefined;
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
