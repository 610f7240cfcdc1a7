import { type FakeMicrosoft, type GraphEventInput, startFakeMicrosoft } from '../../fakes/fake-microsoft.ts';
import { trustTestCertificate } from '../../fakes/trust-test-ca.ts';
import { freeLoopbackPort, listenOnLoopback } from '../../support/listen-on-loopback.ts';
import { type Engine, type TestDatabase, testDatabase } from '../../support/real-store.ts';
import { queryRows, type Row } from '../../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';

export const TENANT = '8d3c2b1a-1111-2222-3333-444455556666';
export const CLIENT_ID = '0f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff';
export const CLIENT_SECRET = 'graph-client-secret-value';
export const ANA = 'ana.rep@example.com';
export const OPPORTUNITY = '0068d0000101XyZAAU';

/** PUBLIC_BASE_URL must be known before the bridge listens (Graph validates it while subscribing), so the port is chosen up front. */
export const freePort = freeLoopbackPort;

export async function fakeMicrosoft(options: { clientCertificatePem?: string; pageSize?: number; latencyMs?: number } = {}): Promise<FakeMicrosoft> {
  // The fake login host is HTTPS with a test certificate (MSAL insists on HTTPS): trust it in this process.
  trustTestCertificate();
  return startFakeMicrosoft({ tenantId: TENANT, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, mailboxes: [ANA], ...options });
}

/** A bridge on `port` watching ANA's mailbox at the fake Graph, its remaps to `momentumUrl` (DATABASE_URL is the caller's). */
export const microsoftBridgeEnv = (microsoft: { loginUrl: string; graphUrl: string }, port: number, momentumUrl: string): Record<string, string> => ({
  NODE_ENV: 'test',
  PORT: String(port),
  HOST: '127.0.0.1',
  MOMENTUM_API_BASE_URL: momentumUrl,
  MOMENTUM_API_KEY: 'mk-test-key',
  // Also for bridges started without the test harness (which turns it off): no listing calls here.
  MOMENTUM_READBACK: 'off',
  MOMENTUM_RATE_LIMIT: 'off',
  MICROSOFT_TENANT_ID: TENANT,
  MICROSOFT_CLIENT_ID: CLIENT_ID,
  MICROSOFT_CLIENT_SECRET: CLIENT_SECRET,
  MICROSOFT_LOGIN_URL: microsoft.loginUrl,
  MICROSOFT_GRAPH_API_URL: microsoft.graphUrl,
  MICROSOFT_CALENDAR_USERS: ANA,
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  INTERNAL_EMAIL_DOMAINS: 'example.com',
});

export interface MicrosoftBridge {
  bridge: TestBridge;
  port: number;
  /** The bridge's database; a restart passes it again. */
  database: TestDatabase;
  /** Rows of the bridge's database, either engine, over a connection of the test's own. */
  rows(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Stops the bridge, then drops the database if this start made it. */
  close(): Promise<void>;
}

export interface MicrosoftBridgeOptions {
  /** The engine of the database made when none is given (default SQLite). */
  engine?: Engine;
  /** A database of an earlier start (a restart): kept when this bridge closes. */
  database?: TestDatabase;
  env?: Record<string, string>;
  port?: number;
}

/** The real startBridge (startTestBridge), watching ANA's mailbox at the fake Graph; `port`/`database` given again make a restart. */
export async function startMicrosoftBridge(microsoft: FakeMicrosoft, momentumUrl: string, options: MicrosoftBridgeOptions = {}): Promise<MicrosoftBridge> {
  const own = options.database === undefined ? testDatabase(options.engine ?? 'sqlite', 'ms') : undefined;
  const database = options.database ?? own!;
  const port = options.port ?? (await freePort());
  const bridge = await startTestBridge({
    database,
    env: { ...microsoftBridgeEnv(microsoft, port, momentumUrl), RETRY_SCHEDULE: '100ms,200ms,400ms', ...options.env },
    logLevel: 'info',
  }).catch(async (error: unknown) => {
    await own?.drop();
    throw error;
  });
  return {
    bridge,
    port,
    database,
    rows: (sql, params = []) => queryRows(database.url, sql, params),
    async close() {
      await bridge.stop();
      await own?.drop();
    },
  };
}

/** An Outlook meeting with a customer, its body linking the opportunity. */
export const customerMeeting = (fields: GraphEventInput = {}): GraphEventInput => ({
  subject: 'Pricing review with Globex',
  start: { dateTime: '2026-12-02T08:00:00.0000000', timeZone: 'Pacific Standard Time' },
  end: { dateTime: '2026-12-02T08:30:00.0000000', timeZone: 'Pacific Standard Time' },
  body: { contentType: 'html', content: `<p>Agenda: <a href="https://globex.lightning.force.com/lightning/r/Opportunity/${OPPORTUNITY}/view">deal</a></p>` },
  attendees: [
    { type: 'required', status: { response: 'accepted', time: '2026-11-20T10:00:00Z' }, emailAddress: { name: 'Ana Rep', address: ANA } },
    { type: 'required', status: { response: 'none', time: '0001-01-01T00:00:00Z' }, emailAddress: { name: 'Gail Buyer', address: 'gail@globex.com' } },
  ],
  ...fields,
});

/** A stand-in for the bridge's notification URLs that answers Graph's validation requests only. */
export async function validationReceiver(port: number): Promise<{ close(): Promise<void> }> {
  return listenOnLoopback((req, res) => {
    const token = new URL(req.url ?? '/', 'http://receiver').searchParams.get('validationToken');
    res.writeHead(token === null ? 202 : 200, { 'content-type': 'text/plain' }).end(token ?? '');
  }, port);
}
