import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';

import { Agent, request } from 'undici';

import { startBridge } from '../../src/bridge.ts';
import { signStandardWebhook } from '../../src/calendar/standard-webhooks.ts';
import type { AmbiguousPolicy } from '../../src/matching/types.ts';
import { parseConfig } from '../../src/settings.ts';
import type { FakeSalesforceOrg } from '../../test/fakes/fake-salesforce-org/index.ts';
import { startMomentumFake } from '../lib/momentum-fake.ts';
import { benchLogger } from '../lib/null-logger.ts';
import type { LabelledMeeting, SentRecords } from './labels.ts';
import { INTERNAL_DOMAIN } from './world.ts';

/**
 * The real bridge (`startBridge`, in this process, on SQLite in a fresh directory) as the matching
 * benchmark drives it: Salesforce lookups through the real jsforce directory against the fake
 * org, a fake Momentum that logs every remap with its arrival time, and the bridge's database
 * open read-only for what it stored. Meetings are signed and posted to `POST /calendar/events`.
 */

export const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const SALESFORCE_CLIENT = { clientId: 'bench-matching-app', clientSecret: 'bench-matching-secret' };
/** Small enough that a lookup is never answered from a previous meeting's: each meeting costs its own queries. */
export const LOOKUP_CACHE_TTL = '1ms';
const SENDERS = 32;

/** The mapping file's `matching` section of a run: the tie policy, and Account Types excluded (none by default). */
export interface RunRules {
  policy: AmbiguousPolicy;
  excludeAccountTypes: readonly string[];
}

/** One remap that reached the fake Momentum: the meeting's source id and the records it named. */
export interface RemapArrival {
  at: number;
  id: string;
  records: SentRecords;
}

export interface BenchBridge {
  url: string;
  /** The bridge's database, read-only. */
  db: DatabaseSync;
  /** Every remap in arrival order. */
  remaps: RemapArrival[];
  /** Posts one signed event per meeting; answers how many were not answered 202. */
  post(meetings: readonly LabelledMeeting[], webhookPrefix: string): Promise<number>;
  /** Waits until no job is pending or running (the always-scheduled `crm-sweep` aside); throws past the deadline. */
  settle(deadlineMs: number): Promise<void>;
  stop(): Promise<void>;
}

function eventBody(meeting: LabelledMeeting): string {
  return JSON.stringify({
    version: 1,
    id: meeting.id,
    sourceType: meeting.sourceType,
    title: meeting.title,
    start: new Date(meeting.startMs).toISOString(),
    end: new Date(meeting.startMs + 30 * 60_000).toISOString(),
    organizer: { email: meeting.organizer },
    attendees: meeting.attendees.map((email) => ({ email })),
    ...(meeting.description === undefined ? {} : { description: meeting.description }),
    ...(meeting.location === undefined ? {} : { location: meeting.location }),
  });
}

async function postOne(agent: Agent, url: string, meeting: LabelledMeeting, webhookId: string): Promise<number> {
  const raw = eventBody(meeting);
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await request(`${url}/calendar/events`, {
    method: 'POST',
    dispatcher: agent,
    headers: {
      'content-type': 'application/json',
      'webhook-id': webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signStandardWebhook(WEBHOOK_SECRET, webhookId, timestamp, raw),
    },
    body: raw,
  });
  await response.body.text();
  return response.statusCode;
}

/** Starts a bridge for `org` under `rules`; `env` adds settings (sweep interval, org ids, admin keys). */
export async function startBenchBridge(org: FakeSalesforceOrg, rules: RunRules, env: Record<string, string> = {}): Promise<BenchBridge> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-matching-'));
  const remaps: RemapArrival[] = [];
  const momentum = await startMomentumFake({
    onCall: ({ at, body }) => {
      const remap = body as { source?: { id?: string }; salesforceRecords?: SentRecords } | undefined;
      const id = remap?.source?.id;
      if (id !== undefined) remaps.push({ at, id, records: remap?.salesforceRecords ?? {} });
    },
  });
  const mappingFile = path.join(dir, 'mapping.json');
  const { policy, excludeAccountTypes } = rules;
  writeFileSync(mappingFile, JSON.stringify({ matching: { ambiguous: policy, createdAfterDays: 30, closedBeforeDays: 14, excludeAccountTypes } }));
  const databaseFile = path.join(dir, 'bridge.db');
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${databaseFile}`,
    MOMENTUM_API_BASE_URL: momentum.url,
    MOMENTUM_RECEIVER_URL: momentum.url,
    MOMENTUM_API_KEY: 'bench-key',
    // Read-back's listing calls would share the budget the benchmark measures.
    MOMENTUM_READBACK: 'off',
    MOMENTUM_RATE_LIMIT: 'off',
    INBOUND_RATE_LIMIT: 'off',
    SALESFORCE_LOGIN_URL: org.url,
    SALESFORCE_CLIENT_ID: SALESFORCE_CLIENT.clientId,
    SALESFORCE_CLIENT_SECRET: SALESFORCE_CLIENT.clientSecret,
    SALESFORCE_LOOKUP_CACHE_TTL: LOOKUP_CACHE_TTL,
    CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
    INTERNAL_EMAIL_DOMAINS: INTERNAL_DOMAIN,
    MAPPING_FILE: mappingFile,
    ...env,
  });
  const bridge = await startBridge(config, benchLogger());
  const agent = new Agent({ connections: SENDERS });
  const db = new DatabaseSync(databaseFile, { readOnly: true });
  const open = db.prepare(`SELECT count(*) AS open FROM jobs WHERE state IN ('pending', 'running') AND kind <> 'crm-sweep'`);
  return {
    url: bridge.url,
    db,
    remaps,
    async post(meetings, webhookPrefix) {
      const statuses = await Promise.all(meetings.map((meeting) => postOne(agent, bridge.url, meeting, `${webhookPrefix}.${meeting.id}`)));
      return statuses.filter((status) => status !== 202).length;
    },
    async settle(deadlineMs) {
      const until = Date.now() + deadlineMs;
      while ((open.get() as { open: number }).open > 0) {
        if (Date.now() > until) throw new Error(`the bridge's queue did not settle within ${deadlineMs} ms`);
        await sleep(5);
      }
    },
    async stop() {
      db.close();
      await agent.close();
      await bridge.stop();
      await momentum.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
