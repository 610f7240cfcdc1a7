import { type EventPlan, planOf } from './plan.ts';
import type { Cell, CompiledRow, FilledTable, IdRef, Templates } from './templates.ts';
import { base62, deliveryIdsOf, hash, identityOf, pick, receivedAtOf } from './vary.ts';

/**
 * The rows of event `n` of the year: its template's rows with every marker, id and time filled in
 * for this event, then shaped by its variant (plan.ts). Ids follow from the index, so an event can
 * name the next one's delivery (the one that supersedes it) without reading anything back.
 */

export interface FillFrame {
  total: number;
  /** The year ends here (epoch ms): the newest event arrived just before. */
  end: number;
  /** The largest id of each kind already in the store (0 in a fresh one). */
  base: { message: number; event: number; job: number; meeting: number };
}

export type Row = Array<string | number | null>;
export type TableRows = Record<FilledTable, Row[]>;

/**
 * One transaction's worth: rows by table, and the superseded deliveries with their successors.
 * The bridge stores a superseded job's successor with an UPDATE once the successor exists
 * (SQL.setSupersededBy); the fill does the same, so no row names a job not yet stored (SQLite
 * would then look for the rows naming each new job without an index: a scan per insert).
 */
export interface Chunk {
  rows: TableRows;
  supersededBy: Array<[job: number, successor: number]>;
}

const QUARTER_HOUR = 900_000;
const MEETING_TABLES: ReadonlySet<FilledTable> = new Set(['meetings', 'meeting_sources', 'meeting_links', 'match_touches', 'meeting_versions']);

export const emptyChunk = (templates: Templates): Chunk => ({
  rows: Object.fromEntries(Object.keys(templates.columns).map((table) => [table, []])) as unknown as TableRows,
  supersededBy: [],
});

export function idsOf(n: number, identity: number, frame: FillFrame): Record<IdRef, number> {
  return {
    message: frame.base.message + n + 1,
    event: frame.base.event + n + 1,
    map: frame.base.job + 2 * n + 1,
    delivery: frame.base.job + 2 * n + 2,
    meeting: frame.base.meeting + identity + 1,
  };
}

interface EventValues {
  ids: Record<IdRef, number>;
  times: Record<'wall' | 'start' | 'end' | 'modstamp', number>;
  slot: (name: string) => string;
}

function valuesOf(n: number, plan: EventPlan, frame: FillFrame): EventValues {
  const who = identityOf(plan.identity);
  const own = deliveryIdsOf(n);
  const ids = idsOf(n, plan.identity, frame);
  const wall = receivedAtOf(n, frame.total, frame.end);
  const firstWall = plan.identity === n ? wall : receivedAtOf(plan.identity, frame.total, frame.end);
  const start = Math.floor((firstWall + who.startOffsetMs) / QUARTER_HOUR) * QUARTER_HOUR;
  const times = { wall, start, end: start + who.durationMs, modstamp: wall - 1000 - pick(n, 14, 4000) };
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
  const slots: Record<string, string> = {
    title: who.title,
    company: who.company,
    domain: who.domain,
    buyerEmail: who.buyerEmail,
    buyerName: who.buyerName,
    hostEmail: who.hostEmail,
    hostName: who.hostName,
    colleagueEmail: who.colleagueEmail,
    nobodyEmail: who.nobodyEmail,
    nobodyDomain: who.nobodyDomain,
    sourceType: who.sourceType,
    calendarId: who.calendarId,
    webhookId: own.webhookId,
    startIso: iso(times.start),
    endIso: iso(times.end),
    modIso: iso(times.modstamp),
    eventIdJson: `"eventId":${ids.event}`,
    meetingKey: `meeting-id:${ids.meeting}`,
    meetingIdJson: `"meetingId":${ids.meeting}`,
  };
  const salesforceIds = { ...who, notification: own.notification } as const;
  for (const name of ['event', 'notification', 'opportunity', 'secondOpportunity', 'thirdOpportunity', 'account', 'contact', 'owner'] as const) {
    slots[`${name}15`] = salesforceIds[name].id15;
    slots[`${name}18`] = salesforceIds[name].id18;
  }
  const requestPrefix = `${base62(hash(n, 15), 5)}${n.toString(36)}`;
  return {
    ids,
    times,
    slot: (name) => slots[name] ?? (name.startsWith('request:') ? `${requestPrefix}-${name.slice(8)}` : `<${name}>`),
  };
}

function cellValue(cell: Cell, values: EventValues): string | number | null {
  switch (cell.k) {
    case 'const':
      return cell.v;
    case 'id':
      return values.ids[cell.ref];
    case 'time':
      return values.times[cell.frame] + cell.offset;
    case 'text': {
      let text = cell.parts[0] as string;
      for (let i = 1; i < cell.parts.length; i += 2) text += values.slot(cell.parts[i] as string) + (cell.parts[i + 1] as string);
      return text;
    }
  }
}

/** Which template rows a variant leaves out: a delivery not yet run has no attempts nor delivered row; a superseded one's meeting rows belong to its successor. */
function keeps(row: CompiledRow, plan: EventPlan): boolean {
  if (plan.variant === 'normal' || plan.variant === 'update') return true;
  if (row.job === 'delivery' && row.table !== 'jobs') return false;
  return !(plan.variant === 'supersededFirst' && MEETING_TABLES.has(row.table));
}

export function addEventRows(out: Chunk, templates: Templates, n: number, frame: FillFrame): void {
  const plan = planOf(n, frame.total);
  const template = templates.byRecipe.get(plan.recipe);
  if (template === undefined) throw new Error(`no template for ${plan.recipe}`);
  const values = valuesOf(n, plan, frame);
  const jobColumns = templates.columns.jobs;
  const at = (column: string) => jobColumns.indexOf(column);
  for (const row of template.rows) {
    if (!keeps(row, plan)) continue;
    const values_ = row.cells.map((cell) => cellValue(cell, values));
    if (row.table === 'jobs' && row.job === 'delivery' && (plan.variant === 'pending' || plan.variant === 'supersededFirst')) {
      const created = values_[at('created_at')] as number;
      const superseded = plan.variant === 'supersededFirst';
      values_[at('state')] = superseded ? 'superseded' : 'pending';
      values_[at('attempts')] = 0;
      values_[at('run_at')] = created;
      values_[at('result')] = null;
      values_[at('last_error')] = null;
      // Superseded when the next change of its meeting was enqueued, before it was claimed.
      values_[at('updated_at')] = superseded ? receivedAtOf(n + 1, frame.total, frame.end) + template.deliveryCreatedOffset : created;
      if (superseded) out.supersededBy.push([values.ids.delivery, idsOf(n + 1, n, frame).delivery]);
    }
    out.rows[row.table].push(values_);
  }
}
