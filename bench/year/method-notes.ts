import { SAMPLES } from './admin-reads.ts';
import { SEND_EVERY_MS } from './live-traffic.ts';
import { LOAD_MS } from './measure-engine.ts';
import { SEARCHERS } from './operator-load.ts';
import { PENDING_SHARE, RECIPE_MIX, SUPERSEDED_PER_THOUSAND } from './plan.ts';
import { RETENTION_PHASE_DAYS } from './retention-phase.ts';
import type { RecipeName } from './template-recipes.ts';

/** How the year is filled and measured, for the report's notes (the figures come from the constants the code uses). */

const RECIPE_LABELS: Record<RecipeName, string> = {
  salesforce: 'Salesforce Events',
  salesforceDead: 'Salesforce Events whose remap ended dead after 4 attempts',
  calendarMatched: 'calendar events matched to an opportunity',
  calendarTied: 'calendar events tied between two (Account sent)',
  calendarNone: 'calendar events matching nothing (skipped)',
  calendarInternal: 'internal-only calendar events (skipped)',
  recording: 'signed recordings (imports)',
};

export function methodNotes(): string[] {
  const mix = RECIPE_MIX.map(([name, perThousand]) => `${perThousand / 10} % ${RECIPE_LABELS[name]}`).join(', ');
  return [
    `Fill: the real bridge (startBridge on SQLite, the jsforce directory against a tiny fake org, a fake Momentum failing one title) first maps and delivers one message of each kind below; the rows it wrote in every table it writes directly are the templates. Each event of the year copies one: ${mix}; each with its own title (topic and company from word lists), attendee, rep, 18-character Salesforce ids, source and webhook ids and times, evenly over the 365 days before the fill. ${SUPERSEDED_PER_THOUSAND / 10} % of the Salesforce and matched calendar meetings change twice (the first remap superseded by the second); the newest ${PENDING_SHARE * 100} % of deliveries are pending.`,
    'Rows go in as plain INSERTs, 2 000 events a transaction, into a store the bridge’s own openStore created (its migrations): SQLite through prepared statements (synchronous=OFF while filling), PostgreSQL as INSERT … SELECT FROM unnest (synchronous_commit off), then every table VACUUM ANALYZEd as autovacuum would have. Tables the store derives from these rows are left to its triggers. Fill time is the inserts and what follows them (checkpoint, VACUUM ANALYZE), not the template run (seconds).',
    `Reads: \`node src/server.ts\` as a child on the filled store (ADMIN_API_KEYS set, a fake Momentum at the default MOMENTUM_RATE_LIMIT=100/15m, INBOUND_RATE_LIMIT=off, LOG_LEVEL=info to a drained pipe), after the fill is read back through the admin API. Each read ${SAMPLES} times one after another after a warm-up pass, fewer when a read passes 20 s in all (at least 3; a warm-up over 1 s counts as a sample); page size 25 as the console's. The console opening is its key check (stats), then at once the stats, the activity chart, and the newest Salesforce event, its detail and the deliveries page.`,
    `Acks: Salesforce Outbound Messages and signed calendar events alternately, one every ${SEND_EVERY_MS} ms whether or not the previous one was answered, each timed from send to the whole answer (a sender waits 60 s): 20 warm-up, the idle sample, then ${LOAD_MS / 1000} s of sending while ${SEARCHERS} operators run the five searches in turn without pause and a console opens and polls (stats every 10 s); the load goes on until the last ack is answered, then searches still running are cut short. Last, a retention pass with RETENTION_DAYS and RETENTION_MEETING_DAYS both ${RETENTION_PHASE_DAYS} (the year's oldest day: what a daily pass removes at this traffic) runs from the benchmark's process on the bridge's database, bounded like the bridge's, while acks go on until it ends (5 s at least). Every run adds its messages to the store and its pass removes a day; a cached store is filled again once it is 2 % off N either way.`,
  ];
}
