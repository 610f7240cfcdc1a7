import type { GraphEvent, GraphEventInput } from './fake-microsoft-calendar.ts';
import type { Delivery, ValidationAttempt } from './fake-microsoft-webhooks.ts';

/** The fake Microsoft 365's public shapes (fake-microsoft.ts) and what its two servers share. */

export type { Delivery, GraphEvent, GraphEventInput, ValidationAttempt };
export type MicrosoftFailureTarget = 'metadata' | 'token' | 'create' | 'renew' | 'reauthorize' | 'delete' | 'list' | 'delta' | 'event';
export type ChangeType = 'created' | 'updated' | 'deleted';
export type LifecycleEvent = 'reauthorizationRequired' | 'subscriptionRemoved' | 'missed';

export interface FakeMicrosoftOptions {
  tenantId: string;
  /** Other names the tenant answers to in the authority, such as `contoso.onmicrosoft.com`. */
  tenantDomains?: string[];
  clientId: string;
  clientSecret?: string;
  /** The app's client certificate, PEM (a private key in the same text is ignored), for signed client assertions. */
  clientCertificatePem?: string;
  /** Mailbox addresses of the tenant; more with `addMailbox`. */
  mailboxes?: string[];
  /** Delta page size when the request has no `Prefer: odata.maxpagesize` (default 2). */
  pageSize?: number;
  /** Delay of every calendarView/delta answer, so concurrent calls overlap (default 0). */
  latencyMs?: number;
  /** When set, more requests than this in flight for one mailbox answer 429 ApplicationThrottled (Outlook allows 4). */
  concurrencyLimit?: number;
  /** How long Graph waits for a validation answer (default 10 000 ms, as Graph). */
  validationTimeoutMs?: number;
  /** How long `notify` and `lifecycle` wait for the bridge's answer before rejecting (default 15 000 ms). */
  deliveryTimeoutMs?: number;
}

export interface RecordedMicrosoftRequest {
  server: 'login' | 'graph';
  target: MicrosoftFailureTarget | undefined;
  method: string;
  path: string;
  query: Record<string, string>;
  /** JSON bodies parsed, form bodies (the token endpoint) as an object of fields, others as text. */
  body: unknown;
  headers: { authorization?: string; prefer?: string; 'content-type'?: string; 'client-request-id'?: string; 'user-agent'?: string };
  /** The mailbox address the request concerned, when it concerned one. */
  mailbox: string | undefined;
  /** The status the fake answered, once it has. */
  status: number | undefined;
  at: number;
}

export interface IssuedToken {
  scope: string;
  credential: 'secret' | 'certificate';
  accessToken: string;
  expiresAt: number;
}

export interface FakeSubscription {
  id: string;
  resource: string;
  /** The mailbox address and its object id (what notifications name in `resource`). */
  mailbox: string;
  userId: string;
  changeType: string;
  notificationUrl: string;
  lifecycleNotificationUrl: string | undefined;
  clientState: string | undefined;
  expirationDateTime: string;
  applicationId: string;
  creatorId: string;
  /** Gone: deleted by the client (`removedBy: 'client'`) or removed by Graph (`'graph'`, the subscriptionRemoved lifecycle event). */
  deleted: boolean;
  removedBy: 'client' | 'graph' | undefined;
  renewals: number;
  reauthorizations: number;
  reauthorizationRequired: boolean;
}

export interface FakeMicrosoft {
  start(): Promise<{ loginUrl: string; graphUrl: string }>;
  /** `https://127.0.0.1:<port>` */
  readonly loginUrl: string;
  /** `http://127.0.0.1:<port>/v1.0` */
  readonly graphUrl: string;
  /** `${loginUrl}/${tenantId}`: the authority for msal-node. */
  readonly authority: string;
  /** `127.0.0.1:<port>`: what msal-node's `knownAuthorities` must hold (with the port), or it asks login.microsoftonline.com. */
  readonly knownAuthority: string;
  readonly tokenUrl: string;
  readonly tenantId: string;
  readonly requests: RecordedMicrosoftRequest[];
  readonly subscriptions: Map<string, FakeSubscription>;
  readonly tokensIssued: IssuedToken[];
  /** Every validation request sent on subscription create, with what the endpoint answered. */
  readonly validations: ValidationAttempt[];
  /** Adds a mailbox (idempotent); resolves its object id (by default derived from the address). */
  addMailbox(address: string, userId?: string): string;
  userIdOf(mailbox: string): string;
  /** Adds or changes an event (defaults filled, kept fields merged, lastModifiedDateTime and etag bumped); returns it as stored. */
  upsertEvent(mailbox: string, event: GraphEventInput): GraphEvent;
  deleteEvent(mailbox: string, eventId: string): void;
  /** The live events of a mailbox as stored (in their own time zones). */
  eventsOf(mailbox: string): GraphEvent[];
  /** Every delta and skip token issued so far for the mailbox answers 410 Gone (`syncStateNotFound`) from now on. */
  invalidateDeltaTokens(mailbox: string): void;
  /**
   * The mailbox's delta calls answer 200 with what `answer` returns (given the query and the delta URL), instead
   * of the calendar's round, whenever it returns a page: a nextLink chain that never ends, a link to another host.
   */
  scriptDelta(mailbox: string, answer: ((query: Record<string, string>, deltaUrl: string) => object | undefined) | undefined): void;
  /** The highest number of Graph requests concerning the mailbox that were in flight at once. */
  maxConcurrentRequests(mailbox: string): number;
  /** Every access token issued so far is refused by Graph from now on, as when it expires. */
  expireAccessTokens(): void;
  /**
   * After `after` more good calls (default 0), the next `times` calls of `target` answer `status`
   * with `body` (default: the service's error shape) and `headers` (default for 429: `Retry-After: 1`).
   */
  fail(target: MicrosoftFailureTarget, status: number, options?: { times?: number; after?: number; headers?: Record<string, string>; body?: unknown }): void;
  /** POSTs a change notification for one event to the subscription's notificationUrl, as Graph does. */
  notify(
    subscriptionId: string,
    changeType: ChangeType,
    eventId: string,
    options?: { clientState?: string; extraItems?: object[]; raw?: string },
  ): Promise<Delivery>;
  /** One POST carrying items of several subscriptions (they must share a notificationUrl). */
  notifyBatch(items: Array<{ subscriptionId: string; changeType: ChangeType; eventId: string; clientState?: string }>): Promise<Delivery>;
  /** POSTs a lifecycle notification to the subscription's lifecycleNotificationUrl; subscriptionRemoved also removes it. */
  lifecycle(subscriptionId: string, event: LifecycleEvent, options?: { clientState?: string; raw?: string }): Promise<Delivery>;
  requestsOf(target: MicrosoftFailureTarget): RecordedMicrosoftRequest[];
  close(): Promise<void>;
}

export interface Failure {
  target: MicrosoftFailureTarget;
  status: number;
  headers: Record<string, string> | undefined;
  body: unknown;
  skip: number;
}
export type Send = (status: number, body?: unknown, headers?: Record<string, string>) => void;
export type RequestIds = { requestId: string; clientRequestId: string };
