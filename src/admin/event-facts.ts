/**
 * What an operator knows a meeting by, read from one stored inbound event: calendar events and
 * recordings carry `title` and `start`; a Salesforce notification carries the record's fields
 * (an Event's `Subject` and `StartDateTime`, or a record's `Name`).
 */

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const textAt = (value: Record<string, unknown>, key: string): string | null => {
  const text = value[key];
  return typeof text === 'string' && text !== '' ? text : null;
};

export function eventFacts(parsedPayload: unknown): { title: string | null; start: string | null } {
  const payload = isRecord(parsedPayload) ? parsedPayload : {};
  const fields = isRecord(payload.fields) ? payload.fields : {};
  return {
    title: textAt(payload, 'title') ?? textAt(fields, 'Subject') ?? textAt(fields, 'Name'),
    start: textAt(payload, 'start') ?? textAt(fields, 'StartDateTime') ?? textAt(fields, 'ActivityDateTime'),
  };
}
