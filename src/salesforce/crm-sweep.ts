import { z } from 'zod';

import type { Logger } from '../core/logger.ts';
import { defineJobKind } from '../jobs/job-kind.ts';
import type { HandlerResult } from '../jobs/types.ts';
import { rematchJob } from '../mapping/rematch-job.ts';
import type { CrmDirectory } from '../matching/directory.ts';
import { JOB_PRIORITY, type MatchStore, type NewJob } from '../store/types.ts';
import { crmChangeOf } from './crm-change.ts';
import { type CrmChanges, positionText, SWEPT_OBJECTS, type SweptObject } from './crm-changes.ts';

/**
 * `crm-sweep` (docs/calendars.md, re-matching): every REMATCH_SWEEP_INTERVAL, ask Salesforce what
 * changed since the last sweep, object by object, and re-check the meetings whose match looked at
 * a changed record, exactly as an Outbound Message of it would. One sweep is pending at a time
 * over every instance (one coalescing key); it enqueues the next. The watermarks are stored with
 * the re-match jobs they led to, in one transaction, so a crash re-reads rather than skips.
 */

const DAY_MS = 86_400_000;
/** Records read per object per sweep; a full page makes the next sweep come at once. */
export const SWEEP_PAGE = 200;

export const crmSweepKind = defineJobKind('crm-sweep', z.object({}), {
  fieldsOf: () => ({ coalesceKey: 'crm-sweep', priority: JOB_PRIORITY.bulk }),
});

export const crmSweepJob = (runAt?: number): NewJob => crmSweepKind.job({}, runAt === undefined ? {} : { runAt });

export interface CrmSweepDeps {
  changes: CrmChanges;
  matches: Pick<MatchStore, 'getWatermark' | 'meetingsTouching'>;
  directory?: CrmDirectory;
  intervalMs: number;
  rematchDays: number;
  logger: Logger;
}

export function createCrmSweepHandler(deps: CrmSweepDeps) {
  return crmSweepKind.handler(async (_payload, _job, context): Promise<HandlerResult> => {
    const now = context.now();
    const enqueue: NewJob[] = [];
    const watermarks: Array<{ object: string; modstamp: string }> = [];
    let full = false;
    for (const object of Object.keys(SWEPT_OBJECTS) as SweptObject[]) {
      // The first sweep looks one interval back: it runs one interval after the start, so it covers the time since.
      const since = (await deps.matches.getWatermark(object)) ?? new Date(now - deps.intervalMs).toISOString();
      const records = await deps.changes.changedSince(object, since, SWEEP_PAGE);
      full ||= records.length === SWEEP_PAGE;
      const last = records.at(-1);
      // With nothing new the watermark stays where this sweep began reading (stored the first time),
      // so a late sweep reads from there rather than one interval back from its own start.
      const lastId = last?.fields.Id;
      watermarks.push({
        object,
        modstamp:
          last === undefined
            ? since
            : positionText({ modstamp: new Date(Date.parse(last.systemModstamp)).toISOString(), ...(lastId === undefined ? {} : { afterId: lastId }) }),
      });
      if (last === undefined) continue;
      for (const record of records) {
        const found = crmChangeOf({ sObjectType: object, fields: record.fields });
        if (found === undefined) continue;
        deps.directory?.forget(found.change);
        const meetings = await deps.matches.meetingsTouching(found.touches, now - deps.rematchDays * DAY_MS, 500);
        enqueue.push(...meetings.map((meetingKey) => rematchJob(meetingKey, `${found.cause} (sweep)`)));
      }
    }
    enqueue.push(crmSweepJob(full ? now : now + deps.intervalMs));
    context.logger.info('salesforce sweep', { changed: watermarks.length, rematches: enqueue.length - 1, again: full ? 'at once' : 'after the interval' });
    return { kind: 'succeeded', result: { rematches: enqueue.length - 1, watermarks }, enqueue, ...(watermarks.length > 0 ? { watermarks } : {}) };
  });
}
