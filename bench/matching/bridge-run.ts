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
import type { Answer } from './score.ts';
import { INTERNAL_DOMAIN } from './world.ts';

/**
 * One pass of the labelled meetings through the real bridge (`startBridge`, in this process, on
 * SQLite in a fresh directory): every meeting is signed and posted to `POST /calendar/events`,
 * looked up in the fake Salesforce org by the real jsforce directory, and its remap read at a
 * fake Momentum by source id. `burst` posts them all at once, `alone` one at a time, each after
 * the previous one's jobs have settled. The bridge's match records say why, for the report.
 */

export const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const SALESFORCE_CLIENT = { clientId: 'bench-matching-app', clientSecret: 'bench-matching-secret' };
/** Small enough that a lookup is never answered from a previous meeting's: each meeting costs its own queries. */
export const LOOKUP_CACHE_TTL = '1ms';
const SENDERS = 32;
const BURST_DEADLINE_MS = 180_000;
const ALONE_DEADLINE_MS = 20_000;

export type Mode = 'burst' | 'alone';

export interface RunOutcome {
  policy: AmbiguousPolicy;
  mode: Mode;
  answers: Map<string, Answer>;
  /** Meetings whose remap arrived more than once. */
  duplicates: number;
  /** SOQL queries the org received during the run. */
  queries: number;
  /** Posts not answered 202. */
  refused: number;
  /** Jobs by `kind state` when the run ended. */
  jobs: Record<string, number>;
  /** The newest match record per meeting id: the rule that decided and its summary. */
  matches: Map<string, { rule: string; summary: string }>;
  durationMs: number;
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

async function post(agent: Agent, url: string, meeting: LabelledMeeting, webhookId: string): Promise<number> {
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

/** Waits until no job is pending or running; throws past the deadline. */
async function settle(db: DatabaseSync, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  const open = db.prepare(`SELECT count(*) AS open FROM jobs WHERE state IN ('pending', 'running')`);
  while ((open.get() as { open: number }).open > 0) {
    if (Date.now() > until) throw new Error(`the bridge's queue did not settle within ${deadlineMs} ms`);
    await sleep(5);
  }
}

function storedState(db: DatabaseSync): Pick<RunOutcome, 'jobs' | 'matches'> {
  const jobs: Record<string, number> = {};
  for (const row of db.prepare('SELECT kind, state, count(*) AS n FROM jobs GROUP BY kind, state').all() as Array<{ kind: string; state: string; n: number }>)
    jobs[`${row.kind} ${row.state}`] = Number(row.n);
  const matches = new Map<string, { rule: string; summary: string }>();
  // The meeting key is `calendar:<origin>:<id>`; rows come oldest first, so the newest stays.
  for (const row of db.prepare('SELECT meeting_key, rule, summary FROM match_records ORDER BY id').all() as Array<
    Record<'meeting_key' | 'rule' | 'summary', string>
  >)
    matches.set(row.meeting_key.slice(row.meeting_key.lastIndexOf(':') + 1), { rule: row.rule, summary: row.summary });
  return { jobs, matches };
}

/** The mapping file's `matching` section of a run: the tie policy, and Account Types excluded (none by default). */
export interface RunRules {
  policy: AmbiguousPolicy;
  excludeAccountTypes: readonly string[];
}

export async function runMeetings(meetings: readonly LabelledMeeting[], org: FakeSalesforceOrg, rules: RunRules, mode: Mode): Promise<RunOutcome> {
  const { policy, excludeAccountTypes } = rules;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-matching-'));
  const answers = new Map<string, Answer>();
  let duplicates = 0;
  const momentum = await startMomentumFake({
    onCall: ({ body }) => {
      const remap = body as { source?: { id?: string }; salesforceRecords?: SentRecords } | undefined;
      const id = remap?.source?.id;
      if (id === undefined) return;
      if (answers.has(id)) duplicates += 1;
      answers.set(id, remap?.salesforceRecords ?? {});
    },
  });
  const mappingFile = path.join(dir, 'mapping.json');
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
  });
  const bridge = await startBridge(config, benchLogger());
  const agent = new Agent({ connections: SENDERS });
  const db = new DatabaseSync(databaseFile, { readOnly: true });
  org.resetQueries();
  const started = Date.now();
  let refused = 0;
  const send = async (meeting: LabelledMeeting) => {
    if ((await post(agent, bridge.url, meeting, `${policy}.${mode}.${meeting.id}`)) !== 202) refused += 1;
  };
  try {
    if (mode === 'burst') {
      await Promise.all(meetings.map(send));
      await settle(db, BURST_DEADLINE_MS);
    } else {
      for (const meeting of meetings) {
        await send(meeting);
        await settle(db, ALONE_DEADLINE_MS);
      }
    }
    const durationMs = Date.now() - started;
    return { policy, mode, answers, duplicates, queries: org.queries().length, refused, ...storedState(db), durationMs };
  } finally {
    db.close();
    await agent.close();
    await bridge.stop();
    await momentum.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
