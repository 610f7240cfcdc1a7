import { afterAll, describe, expect, it } from 'vitest';

import { type FakeGoogle, startFakeGoogle } from '../fakes/fake-google.ts';
import { TEST_SERVICE_ACCOUNT, testKeyPair, testServiceAccountKey } from '../google/support/service-account-key.ts';
import { freeLoopbackPort } from '../support/listen-on-loopback.ts';
import { waitFor } from '../support/wait-for.ts';
import { hasChromium, useConsoleWalk, WALK_TITLE } from './support/console-walk.ts';

/*
 * Part of the walk through the operator console in headless Chromium (the harness, and why one
 * engine, in support/console-walk.ts): Google calendars in the Calendars view. The bridge watches
 * two calendars at a loopback Google whose event listing refuses the first call (403), so one
 * calendar's sync is on record and the other's error is, as Microsoft 365 mailboxes show theirs.
 */

const CALENDARS = ['ana.rep@example.com', 'bob.rep@example.com'];

interface Watched {
  provider: string;
  calendarId: string;
  lastSyncAt: string | null;
  lastError: string | null;
}

describe.skipIf(!hasChromium)(WALK_TITLE, () => {
  let google: FakeGoogle | undefined;
  const walk = useConsoleWalk({
    async env() {
      google = await startFakeGoogle({ serviceAccountEmail: TEST_SERVICE_ACCOUNT, publicKeyPem: testKeyPair().publicKeyPem });
      // The first listing is refused: that calendar's sync fails (a 403 waits for the backstop), the other's goes through.
      google.fail('list', 403);
      const port = await freeLoopbackPort();
      return {
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        GOOGLE_SERVICE_ACCOUNT_KEY: testServiceAccountKey(google.tokenUrl),
        GOOGLE_CALENDAR_API_URL: google.calendarApiUrl,
        GOOGLE_CALENDAR_IDS: CALENDARS.join(','),
      };
    },
    async seed({ api }) {
      await waitFor('a Google calendar synced and one failing', async () => {
        const { calendars } = (await api('calendars')) as unknown as { calendars: Watched[] };
        return calendars.some((item) => item.lastSyncAt !== null) && calendars.some((item) => item.lastError !== null);
      });
    },
  });
  afterAll(async () => {
    await google?.close();
  });

  it('when Google calendars are watched, then each row shows its last sync and its last error, as the API answers them', async () => {
    const { page, photograph, openTab, api } = walk;
    const { calendars } = (await api('calendars')) as unknown as { calendars: Watched[] };
    await openTab('calendars');
    const rows = page.locator('#calendars-table tbody tr[data-provider="google"]');
    await expect.poll(() => rows.count()).toBe(CALENDARS.length);
    const shown = await rows.evaluateAll((items) =>
      items.map((row) => [
        row.getAttribute('data-calendar'),
        row.querySelector('[data-field="last-sync"]')?.textContent,
        row.querySelector('[data-field="last-error"]')?.textContent,
      ]),
    );
    const expected = await page.evaluate(
      (items) => items.map((item) => [item.calendarId, item.lastSyncAt ? new Date(item.lastSyncAt).toLocaleString() : '—', item.lastError ?? '']),
      calendars,
    );
    await photograph('27-google-calendars');

    expect(shown).toEqual(expected);
    expect(shown.some(([, sync]) => sync !== '—')).toBe(true);
    expect(shown.some(([, , error]) => error !== '')).toBe(true);
  });
});
