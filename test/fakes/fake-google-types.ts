/** What the fake Google records and offers its tests (the server is in `fake-google.ts`). */

export interface RecordedGoogleRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The user the bearer token acts as (domain-wide delegation `sub`), when authorised. */
  subject: string | undefined;
}

export interface FakeChannel {
  id: string;
  calendarId: string;
  address: string;
  token: string | undefined;
  resourceId: string;
  expiration: number;
  stopped: boolean;
}

export type FailureTarget = 'token' | 'watch' | 'stop' | 'list';

export interface FakeGoogleOptions {
  serviceAccountEmail: string;
  publicKeyPem: string;
  /** The most events one page of events.list holds (default 2, so paging is exercised). */
  pageSize?: number;
}

export interface FakeGoogle {
  start(): Promise<string>;
  readonly url: string;
  readonly tokenUrl: string;
  readonly calendarApiUrl: string;
  readonly requests: RecordedGoogleRequest[];
  readonly tokensIssued: Array<{ subject: string; scope: string }>;
  readonly channels: Map<string, FakeChannel>;
  /** Adds or changes an event (bumps `updated` unless given); returns the stored event. */
  upsertEvent(calendarId: string, event: Record<string, unknown>): Record<string, unknown>;
  cancelEvent(calendarId: string, eventId: string): void;
  /** Every sync token issued so far for the calendar answers 410 Gone from now on. */
  invalidateSyncTokens(calendarId: string): void;
  /** After `after` more good calls (default 0), the next `times` calls of `target` answer `status`. */
  fail(target: FailureTarget, status: number, options?: { times?: number; after?: number; headers?: Record<string, string>; body?: unknown }): void;
  /** Delivers a push notification to the channel's address as Google does; resolves the status. */
  push(channelId: string, state: 'sync' | 'exists' | 'not_exists', options?: { token?: string; messageNumber?: number }): Promise<number>;
  requestsOf(target: FailureTarget): RecordedGoogleRequest[];
  close(): Promise<void>;
}
