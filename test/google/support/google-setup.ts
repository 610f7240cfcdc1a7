import { type CalendarClient, createCalendarClient } from '../../../src/google/calendar-client.ts';
import { createGoogleAuth, loadServiceAccountKey } from '../../../src/google/service-account.ts';
import type { ChannelStore } from '../../../src/store/channel-store.ts';
import { createSqlChannelStore } from '../../../src/store/sql-channel-store.ts';
import { type FakeGoogle, startFakeGoogle } from '../../fakes/fake-google.ts';
import { TEST_SERVICE_ACCOUNT, testKeyPair, testServiceAccountKey } from './service-account-key.ts';
import { sqliteRunner, type TestRunner } from './sql-runners.ts';

export interface GoogleSetup {
  google: FakeGoogle;
  client: CalendarClient;
  channels: ChannelStore;
  db: TestRunner;
  close(): Promise<void>;
}

/** A fake Google, the real calendar client authenticated with a test service account, and a channel store on its own SQLite file. */
export async function googleSetup(options: { pageSize?: number; file?: string } = {}): Promise<GoogleSetup> {
  const google = await startFakeGoogle({
    serviceAccountEmail: TEST_SERVICE_ACCOUNT,
    publicKeyPem: testKeyPair().publicKeyPem,
    ...(options.pageSize ? { pageSize: options.pageSize } : {}),
  });
  const key = loadServiceAccountKey({ json: testServiceAccountKey(google.tokenUrl) })!;
  const client = createCalendarClient({ baseUrl: google.calendarApiUrl, auth: createGoogleAuth(key) });
  const db = await sqliteRunner(options.file);
  return {
    google,
    client,
    channels: createSqlChannelStore(db.runner),
    db,
    async close() {
      await client.close();
      await google.close();
      await db.close();
    },
  };
}

/** A timed meeting `hoursFromNow` ahead, with one external attendee. */
export function meetingEvent(id: string, hoursFromNow: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const start = new Date(Date.now() + hoursFromNow * 3_600_000);
  return {
    id,
    summary: `Meeting ${id}`,
    start: { dateTime: start.toISOString() },
    end: { dateTime: new Date(start.getTime() + 1_800_000).toISOString() },
    organizer: { email: 'ana.rep@example.com' },
    attendees: [{ email: 'ana.rep@example.com', organizer: true }, { email: 'hank.buyer@globex.test' }],
    ...overrides,
  };
}
