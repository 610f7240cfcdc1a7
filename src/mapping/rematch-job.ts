import { z } from 'zod';

import { defineJobKind } from '../jobs/job-kind.ts';
import { boundKey } from '../store/store-values.ts';
import { JOB_PRIORITY } from '../store/types.ts';

/**
 * `rematch`: decide a meeting's match again because the CRM changed something it looked at
 * (docs/calendars.md, re-matching). Coalesced per meeting, so a burst of CRM changes re-checks it
 * once; the lowest priority class, under live changes and operator actions.
 */
export const rematchKind = defineJobKind('rematch', z.object({ meetingKey: z.string().min(1).max(600), cause: z.string().min(1).max(500) }), {
  fieldsOf: (payload) => ({ coalesceKey: boundKey(`rematch:${payload.meetingKey}`), priority: JOB_PRIORITY.bulk }),
});

export const rematchJob = (meetingKey: string, cause: string) => rematchKind.job({ meetingKey, cause: cause.slice(0, 500) });
