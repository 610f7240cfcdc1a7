import { z } from 'zod';

/**
 * A stored match record as the admin API answers it (src/matching/types.ts MatchRecord, with the
 * row it was stored in): what decided, every candidate with its score and why it won or lost, the
 * policy applied to a tie and the pin. Read back as stored, so a field a later release adds passes through.
 */

export const MATCH_OUTCOMES = ['matched', 'ambiguous', 'none', 'pinned'] as const;

const time = z.string().meta({ description: 'ISO 8601, UTC' });
const records = z
  .object({ opportunityId: z.string().optional(), accountId: z.string().optional(), leadId: z.string().optional() })
  .meta({ description: 'The Salesforce ids sent (after the policy, for a tie)' });

export const candidateSchema = z.looseObject({
  kind: z.enum(['opportunity', 'account', 'lead']),
  id: z.string(),
  name: z.string().nullable().optional(),
  accountId: z.string().optional(),
  score: z.object({ roles: z.int(), owner: z.boolean(), timing: z.int(), account: z.number() }).optional().meta({
    description:
      'An opportunity: contact roles attending, owner attends, timing (2 open, 1 created after, 0 closed before), Account rank; compared in that order',
  }),
  status: z.enum(['chosen', 'tied', 'lost', 'ineligible', 'excluded']),
  why: z.string(),
});

export const matchViewSchema = z
  .looseObject({
    id: z.int().positive(),
    meetingKey: z.string().meta({ description: "The meeting: its map-event job's serial key (`calendar:calendar:<id>`, `google:google:<event id>`…)" }),
    eventId: z.int().positive(),
    meetingId: z.int().positive().nullable().meta({ description: 'The meeting its source is part of (GET /admin/meetings/by-id/:id)' }),
    createdAt: time,
    outcome: z.enum(MATCH_OUTCOMES),
    rule: z
      .string()
      .meta({ description: 'The signal that decided (pinned, explicit_ids, salesforce_link, contact_role, owner_attends, timing, …, ambiguous, none)' }),
    summary: z.string().meta({ description: 'The deciding signal in one sentence' }),
    records,
    policy: z
      .object({ name: z.string(), applied: z.string() })
      .optional()
      .meta({ description: 'For a tie: the policy of the mapping file (matching.ambiguous) and what it did' }),
    attendees: z.array(z.unknown()).meta({ description: 'Each attendee with its kind, Contacts and Leads' }),
    accounts: z.array(z.unknown()).meta({ description: 'Each Account with its evidence and rank' }),
    candidates: z.array(candidateSchema),
    tried: z.array(z.string()).meta({ description: 'The rules tried before the one that decided, and what each found' }),
    rulesVersion: z.string().optional().meta({ description: "The mapping file's version" }),
    pin: z.object({ by: z.string(), at: z.string(), reason: z.string() }).optional().meta({ description: 'A pinned match: who pinned, when, why' }),
  })
  .meta({ description: 'A stored match record' });

export type MatchView = z.infer<typeof matchViewSchema>;
export type MatchOutcomeName = (typeof MATCH_OUTCOMES)[number];
