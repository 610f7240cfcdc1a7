import { calendarSyncKind } from './google/sync-jobs.ts';
import { mapEventKind } from './mapping/map-event-job.ts';
import { rematchKind } from './mapping/rematch-job.ts';
import { lifecycleKind, mailboxSyncKind } from './microsoft/jobs.ts';
import { importKind, remapKind } from './momentum/delivery-jobs.ts';
import { readbackKind } from './momentum/readback-job.ts';
import { reconcileKind } from './reconcile/reconcile-job.ts';
import { crmSweepKind } from './salesforce/crm-sweep.ts';

/**
 * Every kind of background job, in one list. Each kind is declared beside the code that makes and
 * runs it (`defineJobKind`: name, payload schema, the one way to make a job and to handle one),
 * so producers and handlers share one typed payload; this list is where they are all seen at once.
 *
 * | kind          | made by                                   | does                                        |
 * | ------------- | ----------------------------------------- | ------------------------------------------- |
 * | map-event     | every receiver, admin reprocess           | maps one stored inbound event to a delivery |
 * | remap         | map-event, admin manual remap, replay     | POST /v1/meeting/remap (paced)              |
 * | import        | admin manual import, replay               | POST /user-provided-meeting (paced)         |
 * | calendar-sync | Google push, backstop, admin              | pulls a Google calendar's changes           |
 * | microsoft-sync | Graph notification, lifecycle, backstop  | pulls a mailbox's calendar changes (delta)  |
 * | microsoft-lifecycle | Graph lifecycle notification        | renews, recreates or resyncs a subscription |
 * | rematch       | a CRM change (Outbound Message, sweep)    | matches a meeting again; remaps if it moved  |
 * | crm-sweep     | start-up, then itself                     | reads Salesforce's changes, enqueues rematch |
 * | readback      | a remap Momentum accepted, itself         | GET /v1/meetings, one page of a window (paced, lowest class) |
 * | reconcile     | the reconcile timer, itself               | GET /v1/meetings, one page of the re-match window (paced, lowest class) |
 */
export const JOB_CATALOGUE = [
  mapEventKind,
  remapKind,
  importKind,
  calendarSyncKind,
  mailboxSyncKind,
  lifecycleKind,
  rematchKind,
  crmSweepKind,
  readbackKind,
  reconcileKind,
] as const;

export const JOB_KIND_NAMES: readonly string[] = JOB_CATALOGUE.map((kind) => kind.name);
