import type { DeliveredMeeting, DeliveredMeetings, ReadbackOutcome, SentIds } from './delivered-types.ts';
import { placeholders } from './read-sql.ts';
import { num, numOrNull, textOrNull } from './row-mappers.ts';
import type { SqlRunner } from './sql-channel-store.ts';
import { fromJson, toJson } from './store-values.ts';

type Row = Record<string, unknown>;

const optional = <K extends string, V>(key: K, value: V | null): { [P in K]?: V } => (value === null ? {} : ({ [key]: value } as { [P in K]?: V }));

function toDelivered(row: Row): DeliveredMeeting {
  const windowStart = numOrNull(row.window_start);
  const dueAt = numOrNull(row.due_at);
  return {
    jobId: num(row.job_id),
    kind: String(row.kind),
    meetingKey: String(row.meeting_key),
    ...optional('startsAt', numOrNull(row.starts_at)),
    ...optional('momentumId', textOrNull(row.momentum_id)),
    ...optional('title', textOrNull(row.title)),
    ...optional('host', textOrNull(row.host)),
    sent: (fromJson(row.sent) ?? {}) as SentIds,
    ...(windowStart === null || dueAt === null ? {} : { readback: { windowStart, dueAt } }),
    createdAt: num(row.created_at),
    readbackOutcome: textOrNull(row.readback_outcome) as ReadbackOutcome | null,
    held: row.held === null || row.held === undefined ? null : fromJson(row.held),
    checkedAt: numOrNull(row.checked_at),
  };
}

const NOT_READ_BACK = `readback_outcome IS NULL AND window_start = CAST($1 AS BIGINT)`;

/** DeliveredMeetings over either engine, with SQL both accept (`$n` placeholders, rewritten by the runner). */
export function createSqlDeliveredStore(runner: SqlRunner): DeliveredMeetings {
  const q = (sql: string, params: readonly unknown[] = []) => runner.query(sql, params);
  return {
    async supersedeOlder(windowStart, at) {
      await q(
        `UPDATE delivered_meetings SET readback_outcome = 'superseded', checked_at = CAST($2 AS BIGINT)
         WHERE ${NOT_READ_BACK}
           AND EXISTS (SELECT 1 FROM delivered_meetings n WHERE n.meeting_key = delivered_meetings.meeting_key AND n.job_id > delivered_meetings.job_id)`,
        [windowStart, at],
      );
    },
    async dueForReadback(windowStart, dueBy, limit) {
      const rows = await q(
        `SELECT * FROM delivered_meetings WHERE ${NOT_READ_BACK} AND due_at <= CAST($2 AS BIGINT) ORDER BY due_at, job_id LIMIT CAST($3 AS INTEGER)`,
        [windowStart, dueBy, limit],
      );
      return rows.map(toDelivered);
    },
    async nextReadbackDue(windowStart) {
      const [row] = await q(`SELECT MIN(due_at) AS due_at FROM delivered_meetings WHERE ${NOT_READ_BACK}`, [windowStart]);
      return numOrNull(row?.due_at) ?? undefined;
    },
    async settleReadbacks(results, at) {
      for (const result of results) {
        await q(
          `UPDATE delivered_meetings SET readback_outcome = $2, held = $3, checked_at = CAST($4 AS BIGINT) WHERE job_id = CAST($1 AS BIGINT) AND readback_outcome IS NULL`,
          [result.jobId, result.outcome, result.held === undefined ? null : toJson(result.held), at],
        );
      }
    },
    async forJobs(jobIds) {
      if (jobIds.length === 0) return [];
      const params: Array<string | number> = [];
      const add = placeholders(params);
      const rows = await q(`SELECT * FROM delivered_meetings WHERE job_id IN (${jobIds.map((id) => `CAST(${add(id)} AS BIGINT)`).join(', ')})`, params);
      return rows.map(toDelivered);
    },
    async namedAmong(from, to, momentumIds) {
      const params: Array<string | number> = [];
      const add = placeholders(params);
      const byStart = `(starts_at >= CAST(${add(from)} AS BIGINT) AND starts_at <= CAST(${add(to)} AS BIGINT))`;
      const byId = momentumIds.length === 0 ? '' : ` OR momentum_id IN (${momentumIds.map((id) => add(id)).join(', ')})`;
      return (await q(`SELECT * FROM delivered_meetings WHERE ${byStart}${byId}`, params)).map(toDelivered);
    },
  };
}
