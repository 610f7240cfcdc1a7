import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import autocannon, { type AutocannonResult } from 'autocannon';

import { OUTBOUND_MESSAGE_PATH } from '../routes/salesforce.ts';
import { startChild } from './lib/child.ts';
import { createMessageFactory, OUTBOUND_HEADERS } from './lib/outbound-messages.ts';
import { type BenchResult, measure, reportResult, tableOf, targetRow } from './lib/report.ts';
import { median, round } from './lib/stats.ts';

/**
 * bench:ingest: autocannon against the real POST /salesforce/outbound-message with the
 * default durable SQLite store, side by side with a bare node:http and a bare express handler that
 * read the same bodies and answer the same ack without storing. Each server runs alone in a child
 * process; autocannon runs in this process (2 cores: one each). The servers take turns for
 * ROUNDS rounds and each figure is the median of its rounds, so a burst of other work on a shared
 * machine skews one round of one server, not the comparison.
 */

const SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SIZES = [1, 100] as const;
const SERVERS = ['bare-http', 'bare-express', 'bridge'] as const;
type ServerKind = (typeof SERVERS)[number];

interface Round {
  messagesPerSecond: number;
  p50: number;
  p99: number;
  acked: number;
  failed: number;
  /** bridge only: notifications stored in the measured window minus those acknowledged (never < 0). */
  storedMinusAcked?: number;
  serverMaxRssMb: number;
  /** The server process's CPU time (all threads) per acknowledged message. */
  cpuMicrosPerMessage: number;
}

type Summary = ReturnType<typeof summarise>;

const script = path.join(import.meta.dirname, 'lib/ingest-server.ts');

function load(url: string, seconds: number, nextMessage: () => { xml: string }): Promise<AutocannonResult> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: OUTBOUND_MESSAGE_PATH,
        headers: OUTBOUND_HEADERS,
        // A fresh body (fresh notification ids) per request: dedupe must not short-circuit.
        setupRequest: (request) => ({ ...request, body: nextMessage().xml }),
      },
    ],
  });
}

function storedNotifications(databaseFile: string): number {
  const db = new DatabaseSync(databaseFile, { readOnly: true });
  try {
    return Number(db.prepare('SELECT COUNT(*) AS n FROM inbound_events').get()?.n ?? 0);
  } finally {
    db.close();
  }
}

async function measureRound(server: ServerKind, notifications: number): Promise<Round> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-ingest-'));
  const databaseFile = path.join(dir, 'bridge.db');
  const child = await startChild(script, server === 'bridge' ? [server, databaseFile] : [server], { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' });
  try {
    const nextMessage = createMessageFactory(notifications);
    const warmup = WARMUP_SECONDS > 0 ? await load(child.url, WARMUP_SECONDS, nextMessage) : undefined;
    const cpuBefore = Number((await child.ask({ type: 'cpu' }, 'cpu:reply')).cpuMicros);
    const result = await load(child.url, SECONDS, nextMessage);
    const cpuMicros = Number((await child.ask({ type: 'cpu' }, 'cpu:reply')).cpuMicros) - cpuBefore;
    const stopped = await child.stop();
    const acked = result['2xx'];
    // Requests cut off when the clock stopped may be stored but unacked: stored ≥ acked, never less.
    const storedMinusAcked = server === 'bridge' ? storedNotifications(databaseFile) - ((warmup?.['2xx'] ?? 0) + acked) * notifications : undefined;
    return {
      messagesPerSecond: acked / result.duration,
      cpuMicrosPerMessage: acked > 0 ? cpuMicros / acked : 0,
      p50: result.latency.p50,
      p99: result.latency.p99,
      acked,
      failed: result.non2xx + result.errors + result.timeouts,
      ...(storedMinusAcked === undefined ? {} : { storedMinusAcked }),
      serverMaxRssMb: Number(stopped?.maxRssBytes ?? 0) / 2 ** 20,
    };
  } finally {
    await child.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

function summarise(server: ServerKind, notifications: number, rounds: Round[]) {
  const rates = rounds.map((r) => r.messagesPerSecond);
  const messagesPerSecond = median(rates);
  return {
    server,
    notifications,
    messagesPerSecond,
    minMessagesPerSecond: Math.min(...rates),
    maxMessagesPerSecond: Math.max(...rates),
    notificationsPerSecond: messagesPerSecond * notifications,
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    acked: rounds.reduce((sum, r) => sum + r.acked, 0),
    failed: rounds.reduce((sum, r) => sum + r.failed, 0),
    lostAcks: rounds.reduce((sum, r) => sum + Math.max(0, -(r.storedMinusAcked ?? 0)), 0),
    serverMaxRssMb: Math.max(...rounds.map((r) => r.serverMaxRssMb)),
    cpuMicrosPerMessage: median(rounds.map((r) => r.cpuMicrosPerMessage)),
  };
}

export const runIngestBench = (): Promise<BenchResult> =>
  measure('ingest', 'Ingest: POST /salesforce/outbound-message (npm run bench:ingest)', async () => {
    const summaries: Summary[] = [];
    for (const notifications of SIZES) {
      const rounds = new Map<ServerKind, Round[]>(SERVERS.map((server) => [server, []]));
      for (let round_ = 1; round_ <= ROUNDS; round_++) {
        for (const server of SERVERS) {
          const run = await measureRound(server, notifications);
          console.log(
            `ingest ×${notifications} round ${round_} ${server}: ${round(run.messagesPerSecond)} msg/s, p50 ${run.p50} ms, p99 ${run.p99} ms, ${round(run.cpuMicrosPerMessage)} µs CPU/msg`,
          );
          rounds.get(server)?.push(run);
        }
      }
      for (const server of SERVERS) summaries.push(summarise(server, notifications, rounds.get(server) ?? []));
    }
    const find = (server: ServerKind, notifications: number) => {
      const summary = summaries.find((s) => s.server === server && s.notifications === notifications);
      if (!summary) throw new Error(`missing summary ${server} ×${notifications}`);
      return summary;
    };
    const bridge1 = find('bridge', 1);
    const express1 = find('bare-express', 1);
    const bridge100 = find('bridge', 100);
    const express100 = find('bare-express', 100);
    const notes = [
      `Each server runs alone in a child process; autocannon runs in the parent (2 cores: one each). ${CONNECTIONS} connections, fresh notification ids in every request. The servers take turns for ${ROUNDS} rounds (${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured each, a fresh process and database per round); figures are medians of the rounds, the min–max column shows the spread.`,
      'bridge = the real app wired as startBridge wires it (request id, access log, helmet, metrics, slow-client limits, SOAP parse, org check, one durable SQLite transaction per group commit, synchronous=FULL) at the default LOG_LEVEL=info (to /dev/null), INBOUND_RATE_LIMIT=off (all load comes from one loopback address); the worker is not started, so delivery does not compete with ingest.',
      'bare-http / bare-express read the same bodies and answer the same ack envelope without parsing or storing.',
      'Ingest figures are reported, not targets: what a sender needs is an ack inside its budget (Salesforce waits 60 s), which every row meets by orders of magnitude; the throughput targets moved with the host in opposite directions (docs/performance.md).',
      `The p99 latency is read for 1-notification messages: with ${CONNECTIONS} connections always busy, mean latency = ${CONNECTIONS} ÷ messages/s (Little's law), so 100-notification messages at the 30,000 notifications/s target (300 msg/s) average ${Math.round((CONNECTIONS / 300) * 1000)} ms by arithmetic alone.`,
    ];
    const lost = summaries.filter((s) => s.lostAcks > 0);
    if (lost.length > 0)
      notes.push(`WARNING: fewer notifications stored than acknowledged: ${lost.map((s) => `×${s.notifications}: ${s.lostAcks}`).join(', ')}.`);
    const failures = summaries.filter((s) => s.failed > 0);
    if (failures.length > 0)
      notes.push(`Non-2xx, errors or client timeouts (10 s): ${failures.map((s) => `${s.server} ×${s.notifications}: ${s.failed}`).join(', ')}.`);

    return {
      settings: {
        connections: CONNECTIONS,
        rounds: ROUNDS,
        seconds: SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        store: 'sqlite (file, WAL, synchronous=FULL)',
        worker: 'off',
      },
      targets: [
        targetRow({
          metric: '1-notification messages/s',
          measured: bridge1.messagesPerSecond,
          unit: 'msg/s',
          baseline: { label: 'bare express', value: express1.messagesPerSecond },
          target: 'reported (was ≥ 0.4 × bare express)',
          pass: () => null,
        }),
        targetRow({
          metric: '100-notification messages: notifications/s',
          measured: bridge100.notificationsPerSecond,
          unit: 'notif/s',
          baseline: { label: 'bare express', value: express100.notificationsPerSecond },
          target: 'reported (was ≥ 30,000 notif/s)',
          pass: () => null,
        }),
        targetRow({
          metric: `1-notification messages: p99 ack latency at ${CONNECTIONS} connections`,
          measured: bridge1.p99,
          unit: 'ms',
          baseline: { label: 'bare express', value: express1.p99 },
          target: 'reported (was < 50 ms; far inside the 60 s Salesforce waits)',
          pass: () => null,
        }),
        targetRow({
          metric: `100-notification messages: p99 ack latency at ${CONNECTIONS} connections`,
          measured: bridge100.p99,
          unit: 'ms',
          baseline: { label: 'bare express', value: express100.p99 },
          target: 'reported (see note)',
          pass: () => null,
        }),
      ],
      tables: [
        tableOf(`Ingest at ${CONNECTIONS} connections (medians of ${ROUNDS} rounds)`, summaries, [
          ['Server', (s) => s.server],
          ['Notifications/message', (s) => s.notifications],
          ['Messages/s', (s) => s.messagesPerSecond],
          ['min–max msg/s', (s) => `${round(s.minMessagesPerSecond)}–${round(s.maxMessagesPerSecond)}`],
          ['Notifications/s', (s) => s.notificationsPerSecond],
          ['p50 ms', (s) => s.p50],
          ['p99 ms', (s) => s.p99],
          ['Server CPU µs/msg', (s) => s.cpuMicrosPerMessage],
          ['Acked', (s) => s.acked],
          ['Non-2xx/errors', (s) => s.failed],
          ['Server peak RSS MB', (s) => s.serverMaxRssMb],
        ]),
      ],
      notes,
    };
  });

if (import.meta.main) reportResult(await runIngestBench());
