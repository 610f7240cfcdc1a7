import { WEBHOOK_SECRET } from '../../calendar/support/signed-events.ts';
import type { FakeGoogle } from '../../fakes/fake-google.ts';
import type { FakeMomentum } from '../../fakes/fake-momentum.ts';
import { freeLoopbackPort } from '../../support/listen-on-loopback.ts';
import type { TestDatabase } from '../../support/real-store.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';
import { testServiceAccountKey } from './service-account-key.ts';

/** Google watching `calendars` at the fake Google, signed calendar events, remaps to the fake Momentum. */
export function calendarSettings(google: FakeGoogle, momentum: FakeMomentum, calendars: readonly string[]): Record<string, string> {
  return {
    MOMENTUM_API_BASE_URL: momentum.url,
    MOMENTUM_RECEIVER_URL: momentum.url,
    MOMENTUM_API_KEY: 'mk-test-key',
    MOMENTUM_RATE_LIMIT: 'off',
    GOOGLE_SERVICE_ACCOUNT_KEY: testServiceAccountKey(google.tokenUrl),
    GOOGLE_CALENDAR_API_URL: google.calendarApiUrl,
    GOOGLE_CALENDAR_IDS: calendars.join(','),
    CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
    INTERNAL_EMAIL_DOMAINS: 'example.com',
  };
}

/**
 * The whole bridge (startTestBridge) with the calendar settings. PUBLIC_BASE_URL must be known
 * before the bridge listens, so the port is chosen up front; a restart passes the port it had
 * (Google still posts to the old address).
 */
export async function startCalendarBridge(options: {
  google: FakeGoogle;
  momentum: FakeMomentum;
  calendars: readonly string[];
  database?: TestDatabase;
  port?: number;
  env?: Record<string, string>;
}): Promise<TestBridge> {
  const port = options.port ?? (await freeLoopbackPort());
  return startTestBridge({
    ...(options.database ? { database: options.database } : {}),
    env: {
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ...calendarSettings(options.google, options.momentum, options.calendars),
      ...options.env,
    },
  });
}
