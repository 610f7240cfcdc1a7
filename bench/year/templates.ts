import { id18, MARK } from './template-org.ts';
import type { RecipeName } from './template-recipes.ts';
import type { StoredRow, TemplateRun } from './template-run.ts';

/**
 * The template run's rows turned into row builders: each cell of each row the bridge wrote for a
 * recipe's event is a constant, a text with markers to fill in, a reference to an id of the event
 * being made, or a time relative to when that event (or its meeting) happened. Only the tables the
 * bridge writes directly are copied; whatever the store derives from them (counters, indexes of
 * its own) is left to the store's triggers.
 */

/** In insert order (parents first). */
export const FILLED_TABLES = [
  'inbound_messages',
  'inbound_events',
  'jobs',
  'attempts',
  'match_records',
  'meetings',
  'meeting_sources',
  'meeting_links',
  'match_touches',
  'meeting_versions',
  'delivered_meetings',
] as const;
export type FilledTable = (typeof FILLED_TABLES)[number];

/** Ids the database assigns: no row refers to attempts or match records by id. */
const AUTO_ID: Partial<Record<FilledTable, string>> = { attempts: 'id', match_records: 'id' };
/** Columns the store's triggers fill on insert: a delivery's number is the next of its sequence, never a copy. */
const TRIGGER_SET: Partial<Record<FilledTable, string>> = { jobs: 'delivery_no' };

export type IdRef = 'message' | 'event' | 'map' | 'delivery' | 'meeting';
type IdKind = 'message' | 'event' | 'job' | 'meeting';

const ID_COLUMNS: Record<FilledTable, Record<string, IdKind>> = {
  inbound_messages: { id: 'message' },
  inbound_events: { id: 'event', message_id: 'message' },
  jobs: { id: 'job', event_id: 'event', superseded_by: 'job', replay_of: 'job' },
  attempts: { job_id: 'job' },
  match_records: { event_id: 'event', map_job_id: 'job', meeting_id: 'meeting' },
  meetings: { id: 'meeting', merged_into: 'meeting' },
  meeting_sources: { meeting_id: 'meeting', event_id: 'event' },
  meeting_links: { meeting_id: 'meeting' },
  match_touches: {},
  meeting_versions: { event_id: 'event', job_id: 'job' },
  delivered_meetings: { job_id: 'job' },
};

export type Cell =
  | { k: 'const'; v: string | number | null }
  | { k: 'text'; parts: string[] } // even indexes literal, odd indexes slot names
  | { k: 'id'; ref: IdRef }
  | { k: 'time'; frame: 'wall' | 'start' | 'end' | 'modstamp'; offset: number };

export interface CompiledRow {
  table: FilledTable;
  /** The template job this row is (jobs) or belongs to (attempts, delivered_meetings): lets variants drop a delivery's rows. */
  job: 'map' | 'delivery' | undefined;
  cells: Cell[];
}

export interface CompiledTemplate {
  recipe: RecipeName;
  rows: CompiledRow[];
  /** Offset of the delivery job's creation from the event's arrival (a superseded one ends when the next is created). */
  deliveryCreatedOffset: number;
}

export interface Templates {
  columns: Record<FilledTable, string[]>;
  byRecipe: Map<RecipeName, CompiledTemplate>;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isoMs = (text: string) => Date.parse(`${text}Z`);

/** Marker text → slot name, for one recipe (rows.ts fills each slot per event). */
function markersOf(run: TemplateRun, recipeIndex: number, eventId: number, meetingIds: number[]): Map<string, string> {
  const recipe = run.recipes[recipeIndex]!;
  const marks = recipe.marks;
  const markers = new Map<string, string>([
    [marks.title, 'title'],
    [`${marks.start}`, 'startIso'],
    [`${marks.end}`, 'endIso'],
    [`${marks.start.slice(0, 10)}T09:00:00`, 'modIso'],
    [`"eventId":${eventId}`, 'eventIdJson'],
    [MARK.host, 'hostEmail'],
    [MARK.hostName, 'hostName'],
    [MARK.buyer, 'buyerEmail'],
    [MARK.buyerName, 'buyerName'],
    [MARK.tiedBuyer, 'buyerEmail'],
    [MARK.nobody, 'nobodyEmail'],
    [`xqcolleague@${MARK.internalDomain}`, 'colleagueEmail'],
    [MARK.company, 'company'],
    ['Xqtied', 'company'],
    [MARK.domain, 'domain'],
    ['xqtied.test', 'domain'],
    ['xqnowhere.test', 'nobodyDomain'],
    ['MS_TEAMS', 'sourceType'],
  ]);
  for (const id of meetingIds) {
    markers.set(`meeting-id:${id}`, 'meetingKey');
    markers.set(`"meetingId":${id}`, 'meetingIdJson');
  }
  const ids: Array<[string, string]> = [
    [MARK.opportunity, 'opportunity'],
    [MARK.account, 'account'],
    [MARK.contact, 'contact'],
    [MARK.ownerUser, 'owner'],
    [MARK.tiedAccount, 'account'],
    [MARK.tiedContact, 'contact'],
    [MARK.tiedOpportunityA, 'secondOpportunity'],
    [MARK.tiedOpportunityB, 'thirdOpportunity'],
  ];
  if (recipe.route === 'salesforce') ids.push([marks.sourceId, 'event'], [marks.deliveryId, 'notification']);
  else markers.set(marks.sourceId, 'calendarId').set(marks.deliveryId, 'webhookId');
  for (const [id15, slot] of ids) markers.set(id18(id15), `${slot}18`).set(id15, `${slot}15`);
  for (let call = 1; call <= 50; call++) markers.set(`tpl-${call}`, `request:${call}`);
  return markers;
}

function compileText(text: string, pattern: RegExp, markers: Map<string, string>): Cell {
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    parts.push(text.slice(last, match.index), markers.get(match[0]) as string);
    last = match.index + match[0].length;
  }
  if (parts.length === 0) return { k: 'const', v: text };
  parts.push(text.slice(last));
  return { k: 'text', parts };
}

interface RecipeFrame {
  receivedAt: number;
  start: number;
  end: number;
  modstamp: number;
  jobRefs: Map<number, IdRef>;
}

function compileCell(table: FilledTable, column: string, value: string | number | null, frame: RecipeFrame, text: (value: string) => Cell): Cell {
  if (value === null) return { k: 'const', v: null };
  const idKind = ID_COLUMNS[table][column];
  if (idKind !== undefined) {
    const ref = idKind === 'job' ? frame.jobRefs.get(Number(value)) : idKind;
    if (ref === undefined) throw new Error(`template ${table}.${column} refers to job ${value} outside its event`);
    return { k: 'id', ref };
  }
  if (typeof value === 'string') return text(value);
  if (value === frame.start) return { k: 'time', frame: 'start', offset: 0 };
  if (value === frame.end) return { k: 'time', frame: 'end', offset: 0 };
  if (value === frame.modstamp) return { k: 'time', frame: 'modstamp', offset: 0 };
  if (Math.abs(value - frame.receivedAt) < 86_400_000) return { k: 'time', frame: 'wall', offset: value - frame.receivedAt };
  return { k: 'const', v: value };
}

/** The rows one template event left, by table. */
function groupOf(run: TemplateRun, event: StoredRow): Array<[FilledTable, StoredRow]> {
  const t = run.tables;
  const rowsOf = (table: FilledTable) => t[table] ?? [];
  const jobs = rowsOf('jobs').filter((job) => job.event_id === event.id);
  const jobIds = new Set(jobs.map((job) => job.id));
  const sources = rowsOf('meeting_sources').filter((row) => row.event_id === event.id);
  const meetingIds = new Set(sources.map((row) => row.meeting_id));
  const recordKeys = new Set(jobs.flatMap((job) => (job.kind === 'map-event' && job.serial_key !== null ? [String(job.serial_key)] : [])));
  const group: Array<[FilledTable, StoredRow[]]> = [
    ['inbound_messages', rowsOf('inbound_messages').filter((row) => row.id === event.message_id)],
    ['inbound_events', [event]],
    ['jobs', jobs],
    ['attempts', rowsOf('attempts').filter((row) => jobIds.has(row.job_id))],
    ['match_records', rowsOf('match_records').filter((row) => row.event_id === event.id)],
    ['meetings', rowsOf('meetings').filter((row) => meetingIds.has(row.id))],
    ['meeting_sources', sources],
    ['meeting_links', rowsOf('meeting_links').filter((row) => recordKeys.has(String(row.record_key)))],
    ['match_touches', rowsOf('match_touches').filter((row) => recordKeys.has(String(row.meeting_key)))],
    ['meeting_versions', rowsOf('meeting_versions').filter((row) => row.event_id === event.id)],
    ['delivered_meetings', rowsOf('delivered_meetings').filter((row) => jobIds.has(row.job_id))],
  ];
  return group.flatMap(([table, rows]) => rows.map((row): [FilledTable, StoredRow] => [table, row]));
}

function compileRecipe(run: TemplateRun, recipeIndex: number, columns: Record<FilledTable, string[]>): CompiledTemplate {
  const recipe = run.recipes[recipeIndex]!;
  const dedupe = recipe.route === 'salesforce' ? `salesforce:${id18(recipe.marks.deliveryId)}` : `:${recipe.marks.deliveryId}`;
  const event = (run.tables.inbound_events ?? []).find((row) => String(row.dedupe_key).endsWith(dedupe));
  if (event === undefined) throw new Error(`the template run stored no event for ${recipe.name}`);
  const group = groupOf(run, event);
  const jobs = group.filter(([table]) => table === 'jobs').map(([, row]) => row);
  const delivery = jobs.find((job) => job.kind !== 'map-event');
  const jobRefs = new Map<number, IdRef>(jobs.map((job) => [Number(job.id), job.kind === 'map-event' ? 'map' : 'delivery']));
  const meetingIds = group.filter(([table]) => table === 'meetings').map(([, row]) => Number(row.id));
  const markers = markersOf(run, recipeIndex, Number(event.id), meetingIds);
  const pattern = new RegExp(
    [...markers.keys()]
      .sort((a, b) => b.length - a.length)
      .map((m) => `${escapeRegExp(m)}${/\d$/.test(m) ? '(?!\\d)' : ''}`)
      .join('|'),
    'g',
  );
  const frame: RecipeFrame = {
    receivedAt: Number(event.received_at),
    start: isoMs(recipe.marks.start),
    end: isoMs(recipe.marks.end),
    modstamp: isoMs(`${recipe.marks.start.slice(0, 10)}T09:00:00`),
    jobRefs,
  };
  const rows = group.map(([table, row]): CompiledRow => {
    const jobId = table === 'jobs' ? row.id : table === 'attempts' || table === 'delivered_meetings' ? row.job_id : undefined;
    return {
      table,
      job: jobId === undefined ? undefined : (jobRefs.get(Number(jobId)) as 'map' | 'delivery'),
      cells: columns[table].map((column) => compileCell(table, column, row[column] ?? null, frame, (text) => compileText(text, pattern, markers))),
    };
  });
  return { recipe: recipe.name, rows, deliveryCreatedOffset: delivery === undefined ? 0 : Number(delivery.created_at) - frame.receivedAt };
}

export function compileTemplates(run: TemplateRun): Templates {
  const columns = Object.fromEntries(
    FILLED_TABLES.map((table) => {
      const sample = run.tables[table]?.[0];
      if (sample === undefined) throw new Error(`the template run wrote no ${table} row`);
      return [table, Object.keys(sample).filter((column) => column !== AUTO_ID[table] && column !== TRIGGER_SET[table])];
    }),
  ) as Record<FilledTable, string[]>;
  const byRecipe = new Map(run.recipes.map((recipe, index) => [recipe.name, compileRecipe(run, index, columns)]));
  return { columns, byRecipe };
}
