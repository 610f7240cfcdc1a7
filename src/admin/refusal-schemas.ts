import { z } from 'zod';

/** GET /admin/refusals: its query and its answer (docs/operations.md, "Refused traffic"). */

/** The longest window: refusal counts are kept this many hours (src/http/refusals/refusal-flush.ts). */
export const REFUSAL_HOURS_MAX = 48;

const time = z.string().meta({ description: 'ISO 8601, UTC' });

export const refusalQuerySchema = z.strictObject({
  hours: z.coerce
    .number({ error: 'expected a whole number of hours' })
    .int({ error: 'expected a whole number of hours' })
    .min(1, { error: 'at least 1 hour' })
    .max(REFUSAL_HOURS_MAX, { error: `at most ${REFUSAL_HOURS_MAX} hours (refusals are kept that long)` })
    .default(24)
    .meta({ description: `The window: the last this many hours (default 24, at most ${REFUSAL_HOURS_MAX})` }),
});

const exampleSchema = z.object({
  at: time,
  sender: z.string().meta({ description: 'The client address (req.ip, as TRUST_PROXY computes it)' }),
  reason: z.string(),
  route: z.string(),
});

export const refusalSummarySchema = z.object({
  windowHours: z.int(),
  since: time.meta({ description: 'Start of the window: counts are per minute, so it is exact to the minute' }),
  total: z.int().meta({ description: 'Refused requests in the window, over every route and reason' }),
  routes: z
    .array(
      z.object({
        route: z.string().meta({ description: 'The inbound path, e.g. /salesforce/outbound-message' }),
        reason: z.string().meta({ description: "The refusal's error code (org_not_allowed, invalid_signature, rate_limited…)" }),
        count: z.int(),
        lastAt: time,
        examples: z.array(exampleSchema).meta({ description: 'The newest few (at most 5), newest first' }),
      }),
    )
    .meta({ description: 'One entry per route and reason, the most refused first' }),
});

export type RefusalQuery = z.output<typeof refusalQuerySchema>;
export type RefusalSummary = z.infer<typeof refusalSummarySchema>;
