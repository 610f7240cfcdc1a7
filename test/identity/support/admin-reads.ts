import { expect } from 'vitest';

/** The admin API as the identity tests read it: a meeting's page by one of its source keys, and the whole meeting by its id. */

export interface MeetingSourceView {
  meetingKey: string;
  source: string;
  start: string | null;
  host: string | null;
  cancelled: boolean;
  importedId: string | null;
}

export interface MeetingByIdView {
  meetingId: number;
  absorbedIds: number[];
  title: string | null;
  cancelled: boolean;
  sources: MeetingSourceView[];
  matches: Array<{ meetingKey: string; meetingId: number | null; outcome: string }>;
  events: Array<{ id: number; source: string; state: string }>;
  deliveries: Array<{ id: number; kind: string; state: string; eventId: number | null; lastError: string | null }>;
}

export async function adminGet<T>(url: string, key: string, path: string): Promise<T> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status, `GET ${path}`).toBe(200);
  return (await response.json()) as T;
}

/** The meeting a source key belongs to, read through its key's page and then by id. */
export async function meetingOfSource(url: string, key: string, meetingKey: string): Promise<MeetingByIdView> {
  const page = await adminGet<{ meetingId: number | null }>(url, key, `/admin/meetings/${encodeURIComponent(meetingKey)}`);
  expect(page.meetingId, `the meeting of ${meetingKey}`).toEqual(expect.any(Number));
  return adminGet<MeetingByIdView>(url, key, `/admin/meetings/by-id/${page.meetingId}`);
}

/** The sources of a meeting as [system, key], sorted (sources first seen within one millisecond have no order). */
export const sourcesOf = (meeting: MeetingByIdView): string[][] => meeting.sources.map((source) => [source.source, source.meetingKey]).sort();
