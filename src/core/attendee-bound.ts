/**
 * The most attendees one meeting carries, whichever way it arrives: a signed calendar event or
 * recording is refused past it (400), and attendees read from an upstream API (Zoom's participants)
 * are cut to it, with the truncation on record. Momentum's meetings list people, not audiences:
 * a webinar of thousands is no more useful to match or to show than its first thousand.
 */
export const MAX_ATTENDEES = 1000;
