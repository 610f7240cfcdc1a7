import { setTimeout as sleep } from 'node:timers/promises';

import type { FakeSalesforceOrg } from '../../test/fakes/fake-salesforce-org/index.ts';
import { notificationId, ORG_ID, outboundMessage } from '../../test/salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../../test/salesforce/support/post-outbound-message.ts';
import type { BenchBridge } from './bench-bridge.ts';
import { type CatchUpSet, DEFERRED_OBJECTS, type DeferredObject } from './catch-up-set.ts';

/**
 * The CRM catching up, and the two ways a real org tells the bridge (docs/calendars.md,
 * re-matching): the held-out records are pushed into the live fake org at once, each with a
 * SystemModstamp of now (as Salesforce stamps every save); then either each record's Outbound
 * Message is posted to `/salesforce/outbound-message`, one message per record as a save fires
 * its rule, all at once; or nothing is said and the sweep has to find them. Staged, the rep's
 * usual order: the Contacts and opportunities are saved (and told) first, the contact roles after.
 */

export { ORG_ID };

/** SystemModstamp as Salesforce writes a datetime. */
const stampOf = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');

export interface Pushed {
  sObject: string;
  record: Record<string, unknown>;
}

/** Pushes the deferred records of `objects` into the org, stamped `changeAt`; answers the records pushed. */
export function catchUp(
  org: FakeSalesforceOrg,
  deferred: CatchUpSet['deferred'],
  changeAt: number,
  objects: readonly DeferredObject[] = DEFERRED_OBJECTS,
): Pushed[] {
  const pushed: Pushed[] = [];
  for (const sObject of objects)
    for (const held of deferred[sObject]) {
      const record = { ...held, SystemModstamp: stampOf(changeAt) };
      (org.org[sObject] ??= []).push(record);
      pushed.push({ sObject, record });
    }
  return pushed;
}

/** An Outbound Message field is text; a null field is left out, as Salesforce sends it nil. */
function fieldsOf(record: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).flatMap(([name, value]) => (value === null || value === undefined || typeof value === 'object' ? [] : [[name, String(value)]])),
  );
}

/** Posts one Outbound Message per record, all at once, notification ids from `first` on; answers how many were not answered 200. */
export async function tellByOutboundMessages(bridge: BenchBridge, pushed: readonly Pushed[], first = 1): Promise<number> {
  const statuses = await Promise.all(
    pushed.map(async ({ sObject, record }, index) => {
      const xml = outboundMessage({ notifications: [{ id: notificationId(first + index), type: `sf:${sObject}`, fields: fieldsOf(record) }] });
      const response = await postOutboundMessage(bridge.url, xml);
      await response.text();
      return response.status;
    }),
  );
  return statuses.filter((status) => status !== 200).length;
}

/** Waits for the first sweep scheduled at or after `changeAt` to finish; throws past the deadline. */
export async function waitForSweepAfter(bridge: BenchBridge, changeAt: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  const done = bridge.db.prepare(`SELECT count(*) AS n FROM jobs WHERE kind = 'crm-sweep' AND state = 'succeeded' AND run_at >= ?`);
  while ((done.get(changeAt) as { n: number }).n === 0) {
    if (Date.now() > until) throw new Error(`no sweep finished within ${deadlineMs} ms of the change`);
    await sleep(20);
  }
}
