import type { Store } from '../store/types.ts';

/** The part of the store the admin API uses: reads, enqueue (reprocess, manual), replays and cancel, match records, pins, meetings and read-backs. */
export type AdminStore = Pick<
  Store,
  | 'listJobs'
  | 'countJobs'
  | 'getJob'
  | 'getAttempts'
  | 'getEvent'
  | 'getMessage'
  | 'listEvents'
  | 'meetingKeysOf'
  | 'meetingActivity'
  | 'enqueue'
  | 'enqueueReplays'
  | 'cancelJob'
  | 'stats'
  | 'activity'
  | 'matches'
  | 'meetings'
  | 'delivered'
  | 'retention'
>;
