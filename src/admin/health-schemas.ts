import { z } from 'zod';

const isoTime = z.string().meta({ description: 'ISO 8601, UTC' });

const integrationSchema = z.object({
  name: z.enum(['salesforce-outbound', 'salesforce-lookups', 'salesforce-pubsub', 'google', 'microsoft', 'zoom', 'signed-events', 'momentum']),
  label: z.string(),
  state: z.enum(['on', 'off', 'failing']).meta({ description: 'off: its settings are not set; failing: its newest call or message failed' }),
  enableWith: z.string().optional().meta({ description: 'The settings that turn it on (given while it is off)' }),
  detail: z.string().optional().meta({ description: 'What else the settings decided: a part that is off, the sandbox' }),
  lastOkAt: isoTime.optional(),
  lastErrorAt: isoTime.optional(),
  lastError: z.string().optional(),
});

const answerSchema = z.object({
  at: isoTime,
  ok: z.boolean(),
  status: z.int().optional().meta({ description: "Momentum's HTTP status, when it answered" }),
  errorClass: z.string().optional().meta({ description: 'http_4xx, http_5xx, rejected, timeout or network' }),
  error: z.string().optional(),
});

export const healthSchema = z.object({
  ready: z.boolean().meta({ description: 'What GET /readyz answers: every check ok' }),
  checks: z.array(z.object({ name: z.string(), ok: z.boolean(), reason: z.string().optional() })),
  version: z.string(),
  startedAt: isoTime,
  uptimeSeconds: z.int(),
  engine: z.enum(['sqlite', 'postgres']),
  instance: z.string().meta({ description: "This instance's id (its job leases' owner): the integrations are as it sees them" }),
  instances: z
    .array(z.object({ id: z.string(), host: z.string(), pid: z.int(), version: z.string(), startedAt: isoTime, seenAt: isoTime, self: z.boolean() }))
    .meta({ description: 'PostgreSQL: the instances seen in the last instancesSeenWithinSeconds; SQLite: this one' }),
  instancesSeenWithinSeconds: z.int(),
  integrations: z.array(integrationSchema),
  momentum: z.object({
    mode: z.enum(['sandbox', 'real']).meta({ description: 'sandbox: no MOMENTUM_API_KEY, calls go to a built-in local receiver' }),
    budget: z.string().meta({ description: "The log its calls are counted in: the sandbox's is apart from a real key's" }),
    lastAnswer: answerSchema.optional().meta({ description: "This instance's newest Momentum call" }),
    lastDead: z
      .object({ deliveryId: z.int(), at: isoTime, error: z.string().nullable() })
      .optional()
      .meta({ description: 'The newest delivery that ended dead, by any instance (stored)' }),
  }),
});

export type HealthAnswer = z.infer<typeof healthSchema>;
