/** What the fake Zoom records and offers its tests (the server is in `fake-zoom.ts`). */

export type ZoomFailureTarget = 'token' | 'participants';

export interface FakeZoomOptions {
  accountId: string;
  clientId: string;
  clientSecret: string;
  /** The most participants one page holds, whatever `page_size` asks (default 2, so paging is exercised). */
  pageSize?: number;
  /** Lifetime of issued access tokens in seconds (default 3600, as Zoom); 0 issues tokens already expired. */
  tokenExpiresIn?: number;
  /** Scopes the app was granted (default `DEFAULT_ZOOM_SCOPES`); without the participants scope that call answers 400 code 4711. */
  scopes?: string[];
}

export interface ZoomParticipant {
  id: string;
  name: string;
  /** Empty for a guest who joined without signing in. */
  user_email: string;
  join_time: string;
  leave_time: string;
  /** Seconds. */
  duration: number;
  registrant_id?: string;
  status: 'in_meeting' | 'in_waiting_room';
}

export type ZoomParticipantInput = Partial<ZoomParticipant> & { name: string };

export interface RecordedZoomRequest {
  target: ZoomFailureTarget | undefined;
  method: string;
  /** The path exactly as received, percent-encoding untouched (`/v2/past_meetings/%252Fabc%253D%253D/participants`). */
  rawPath: string;
  query: Record<string, string>;
  headers: { authorization?: string; 'content-type'?: string; 'user-agent'?: string };
  /** Form bodies as an object of fields, others as text; undefined when empty. */
  body: unknown;
  /** The meeting uuid the path named once decoded by Zoom's rule, when it named a meeting the fake knows. */
  meetingUuid: string | undefined;
  /** The status the fake answered, once it has. */
  status: number | undefined;
  at: number;
}

export interface IssuedZoomToken {
  accessToken: string;
  accountId: string;
  clientId: string;
  scope: string;
  expiresAt: number;
}

export interface FakeZoom {
  start(): Promise<{ oauthUrl: string; apiUrl: string }>;
  /** `http://127.0.0.1:<port>`: what the token answer's `api_url` holds, as Zoom's holds `https://api.zoom.us`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>/oauth/token` */
  readonly oauthUrl: string;
  /** `http://127.0.0.1:<port>/v2` */
  readonly apiUrl: string;
  readonly requests: RecordedZoomRequest[];
  readonly tokensIssued: IssuedZoomToken[];
  /** Makes the meeting known (again) with these participants, defaults filled; returns them as stored. */
  setParticipants(uuid: string, participants: ZoomParticipantInput[]): ZoomParticipant[];
  /** The meeting answers 404 code 3001 from now on, or with `yearOld` 400 code 12702 (Zoom keeps a year of past meetings). */
  forgetMeeting(uuid: string, options?: { yearOld?: boolean }): void;
  /** Every access token issued so far is refused from now on (401 code 124), as when it expires. */
  expireTokens(): void;
  /**
   * After `after` more good calls (default 0), the next `times` calls of `target` answer `status`
   * with `body` (default: Zoom's error shape) and `headers` (default for 429: `Retry-After: 1`).
   */
  fail(target: ZoomFailureTarget, status: number, options?: { times?: number; after?: number; headers?: Record<string, string>; body?: unknown }): void;
  requestsOf(target: ZoomFailureTarget): RecordedZoomRequest[];
  close(): Promise<void>;
}

export const PARTICIPANTS_SCOPE = 'meeting:read:list_past_participants:admin';
export const DEFAULT_ZOOM_SCOPES = [PARTICIPANTS_SCOPE, 'cloud_recording:read:list_recording_files:admin', 'meeting:read:meeting:admin'];

/** How a handler answers: the server adds Zoom's tracking header and records the status. */
export type ZoomSend = (status: number, body?: unknown, headers?: Record<string, string>) => void;
