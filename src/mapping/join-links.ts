/**
 * Conferencing links as identity links (docs/calendars.md, "One meeting across sources"): one
 * call, however its link was written. A Zoom link becomes its meeting number, so it meets a Zoom
 * recording's `id`; a Google Meet link its meeting code; a Teams link its meeting path; any other
 * link its host (lower case), path and query, without the fragment.
 */

const ZOOM_HOST = /(^|\.)(zoom\.us|zoomgov\.com)$/;
// /j/<n> (join), /s/<n> (start), /w/<n> (webinar), /wc/<n>/join and /wc/join/<n> (web client); 9 to 12 digits.
const ZOOM_PATH = /^\/(?:j|s|w|wc|wc\/join)\/(\d{9,12})(?:\/|$)/;
const MEET_CODE = /^\/([a-z]{3}-[a-z]{4}-[a-z]{3})$/;

/** The identity link of a conferencing URL, or undefined for what is not an http(s) link (or a Zoom link without a meeting number). */
export function joinLinkOf(url: string): string | undefined {
  const parsed = URL.canParse(url.trim()) ? new URL(url.trim()) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return undefined;
  const host = parsed.hostname.toLowerCase();
  const path = parsed.pathname.replace(/\/+$/, '');
  if (ZOOM_HOST.test(host)) {
    const number = ZOOM_PATH.exec(path)?.[1];
    return number === undefined ? undefined : `zoom:${number}`;
  }
  if (host === 'meet.google.com') {
    const code = MEET_CODE.exec(path.toLowerCase())?.[1];
    return code === undefined ? undefined : `meet:${code}`;
  }
  // Teams thread ids are case-sensitive: the path is kept as Teams wrote it, decoded once.
  if (host === 'teams.microsoft.com' || host === 'teams.live.com') return `teams:${safeDecode(path)}`;
  return `join:${host}${path}${parsed.search}`;
}

/** The Zoom number of a Zoom meeting id as sent (a number or its text). */
export const zoomLink = (meetingNumber: string): string | undefined => (/^\d{9,12}$/.test(meetingNumber.trim()) ? `zoom:${meetingNumber.trim()}` : undefined);

const URL_IN_TEXT = /https?:\/\/[^\s<>"'()[\]{}]+/gi;
const CONFERENCING = /^(zoom|meet|teams):/;

/**
 * The conferencing links written in free text (a location, a description): only Zoom, Meet and
 * Teams links, whose form names one call. Any other link in a description (a document, a CRM
 * record) names no call and is left out.
 */
export function conferencingUrlsIn(text: string | undefined): string[] {
  if (text === undefined) return [];
  return [...text.matchAll(URL_IN_TEXT)].map((match) => match[0].replace(/[.,;:!?]+$/, '')).filter((url) => CONFERENCING.test(joinLinkOf(url) ?? ''));
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
