import { z } from 'zod';

import type { DeliveredMeeting, Job } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';

/**
 * What reading Momentum back found for a delivery (docs/admin-api.md, read-back): the listing row
 * (a state) and the detail (what was sent and what Momentum held). A remap Momentum accepted but
 * holds other ids for is flagged "accepted but not applied".
 */

export const READBACK_STATES = ['pending', 'confirmed', 'not_applied', 'not_found', 'superseded'] as const;
export type ReadbackState = (typeof READBACK_STATES)[number];

export const NOT_APPLIED = 'accepted but not applied';

const ids = { opportunityId: z.string().optional(), accountId: z.string().optional(), leadId: z.string().optional() };

export const readbackStateSchema = z.enum(READBACK_STATES).nullable().meta({
  description:
    'Read back from Momentum: pending (due at dueAt), confirmed (it holds the ids sent), not_applied (accepted but not applied: it holds other ids), not_found (not in its listing), superseded (a newer delivery of the meeting is read back instead); null when not read back',
});

export const readbackViewSchema = z
  .object({
    state: readbackStateSchema.unwrap(),
    flag: z
      .string()
      .nullable()
      .meta({ description: `"${NOT_APPLIED}" when Momentum holds other ids than were sent; else null` }),
    dueAt: z.string().meta({ description: 'ISO 8601, UTC: when it was (or is) read back' }),
    checkedAt: z.string().nullable().meta({ description: 'ISO 8601, UTC: when the listing was read; null while pending' }),
    sent: z.object(ids).meta({ description: 'The Salesforce ids the remap carried' }),
    held: z
      .object({ momentumMeetingId: z.string(), ...ids })
      .nullable()
      .meta({
        description: "What Momentum's listing held for the meeting (its id, salesforceOpportunityId, salesforceAccountId); null when not found or pending",
      }),
  })
  .nullable()
  .meta({
    description:
      'Read-back of a remap Momentum accepted (MOMENTUM_READBACK); null when it is not read back (read-back off, an import, no start time, not succeeded)',
  });

export type ReadbackView = z.infer<typeof readbackViewSchema>;

const iso = (ms: number): string => new Date(ms).toISOString();

export function readbackState(row: DeliveredMeeting | undefined): ReadbackState | null {
  if (row?.readback === undefined) return null;
  return row.readbackOutcome ?? 'pending';
}

export function readbackView(row: DeliveredMeeting | undefined): ReadbackView {
  const state = readbackState(row);
  if (row?.readback === undefined || state === null) return null;
  const held = row.held as NonNullable<ReadbackView>['held'] | null;
  return {
    state,
    flag: state === 'not_applied' ? NOT_APPLIED : null,
    dueAt: iso(row.readback.dueAt),
    checkedAt: row.checkedAt === null ? null : iso(row.checkedAt),
    sent: row.sent,
    held: held ?? null,
  };
}

/** The delivered rows of these jobs, by job id: one read for a page of deliveries. */
export async function deliveredOf(store: Pick<AdminStore, 'delivered'>, jobs: readonly Job[]): Promise<Map<number, DeliveredMeeting>> {
  const rows = await store.delivered.forJobs(jobs.map((job) => job.id));
  return new Map(rows.map((row) => [row.jobId, row]));
}
