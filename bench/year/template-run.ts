import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';

import { startBridge } from '../../src/bridge.ts';
import { signStandardWebhook } from '../../src/calendar/standard-webhooks.ts';
import { parseConfig } from '../../src/settings.ts';
import { startFakeSalesforceOrg } from '../../test/fakes/fake-salesforce-org/index.ts';
import { ORG_ID } from '../../test/salesforce/support/outbound-message-builder.ts';
import { listenOnLoopback } from '../../test/support/listen-on-loopback.ts';
import { benchLogger } from '../lib/null-logger.ts';
import { OUTBOUND_HEADERS } from '../lib/outbound-messages.ts';
import { MARK, ORG_NOW, templateOrg } from './template-org.ts';
import { FAILING_TITLE_MARK, type Recipe, templateRecipes } from './template-recipes.ts';
import { FILLED_TABLES } from './templates.ts';

/**
 * The template run: the real bridge (startBridge, SQLite in a fresh directory) receives one
 * message per recipe, maps it through the real jsforce directory against a tiny fake org, and
 * delivers it to a fake Momentum that fails the one recipe meant to end dead (a short retry
 * schedule takes it there in seconds). What it stored, table by table, is what the fill copies.
 */

export const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SALESFORCE_CLIENT = { clientId: 'bench-year-app', clientSecret: 'bench-year-secret' };
const SETTLE_MS = 30_000;

export type StoredRow = Record<string, string | number | null>;

export interface TemplateRun {
  recipes: Recipe[];
  /** Every row of every table the run wrote (schema_migrations aside), by table. */
  tables: Record<string, StoredRow[]>;
}

async function startFailingMomentum() {
  let count = 0;
  return listenOnLoopback(
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        count += 1;
        const failing = Buffer.concat(chunks).toString('utf8').includes(FAILING_TITLE_MARK);
        const text = JSON.stringify(failing ? { error: 'Internal error' } : { accepted: true, requestId: `tpl-${count}` });
        res.writeHead(failing ? 500 : 200, { 'content-type': 'application/json', 'x-request-id': `tpl-${count}` });
        res.end(text);
      });
    }),
  );
}

async function send(url: string, recipe: Recipe): Promise<void> {
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> =
    recipe.route === 'salesforce'
      ? OUTBOUND_HEADERS
      : {
          'content-type': 'application/json',
          'webhook-id': recipe.marks.deliveryId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signStandardWebhook(WEBHOOK_SECRET, recipe.marks.deliveryId, timestamp, recipe.body),
        };
  const response = await fetch(`${url}${recipe.route === 'salesforce' ? '/salesforce/outbound-message' : '/calendar/events'}`, {
    method: 'POST',
    headers,
    body: recipe.body,
  });
  await response.text();
  if (response.status !== 200 && response.status !== 202) throw new Error(`template ${recipe.name}: the bridge answered ${response.status}`);
}

async function settle(db: DatabaseSync): Promise<void> {
  const open = db.prepare(`SELECT count(*) AS n FROM jobs WHERE state IN ('pending', 'running') AND kind IN ('map-event', 'remap', 'import')`);
  const until = Date.now() + SETTLE_MS;
  while (Number((open.get() as { n: number }).n) > 0) {
    if (Date.now() > until) {
      const jobs = db.prepare(`SELECT id, kind, state, attempts, run_at, last_error FROM jobs ORDER BY id`).all();
      throw new Error(`the template bridge did not settle within ${SETTLE_MS} ms: ${JSON.stringify(jobs)}`);
    }
    await sleep(10);
  }
}

/** The tables the fill copies: the store's own (search indexes' shadow tables hold 64-bit ids) are left to its triggers. */
function readTables(db: DatabaseSync): Record<string, StoredRow[]> {
  return Object.fromEntries(FILLED_TABLES.map((name) => [name, db.prepare(`SELECT * FROM "${name}"`).all() as StoredRow[]]));
}

export async function runTemplates(): Promise<TemplateRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-year-templates-'));
  const org = await startFakeSalesforceOrg({ org: templateOrg(), ...SALESFORCE_CLIENT, now: () => ORG_NOW });
  const momentum = await startFailingMomentum();
  const databaseFile = path.join(dir, 'bridge.db');
  const recipes = templateRecipes();
  try {
    const bridge = await startBridge(
      parseConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${databaseFile}`,
        MOMENTUM_API_BASE_URL: momentum.url,
        MOMENTUM_RECEIVER_URL: momentum.url,
        MOMENTUM_API_KEY: 'bench-key',
        MOMENTUM_READBACK: 'off',
        MOMENTUM_RATE_LIMIT: 'off',
        INBOUND_RATE_LIMIT: 'off',
        RETRY_SCHEDULE: '0s,1s,1s,1s',
        SALESFORCE_ORG_IDS: ORG_ID,
        SALESFORCE_LOGIN_URL: org.url,
        SALESFORCE_CLIENT_ID: SALESFORCE_CLIENT.clientId,
        SALESFORCE_CLIENT_SECRET: SALESFORCE_CLIENT.clientSecret,
        CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
        INTERNAL_EMAIL_DOMAINS: MARK.internalDomain,
      }),
      benchLogger('warn'),
    );
    const db = new DatabaseSync(databaseFile, { readOnly: true });
    try {
      // One at a time: each recipe's rows are whole before the next arrives.
      for (const recipe of recipes) {
        await send(bridge.url, recipe);
        await settle(db);
      }
      return { recipes, tables: readTables(db) };
    } finally {
      db.close();
      await bridge.stop();
    }
  } finally {
    await momentum.close();
    await org.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await runTemplates(), null, 1));
