import { z } from 'zod';

import { parseDuration } from './durations.ts';

/**
 * The kinds of setting every folder declares its own settings with (src/<folder>/settings.ts).
 * Each carries a description and an example through zod's `.meta()`: start-up errors,
 * `.env.example` and the settings table in docs/configuration.md read them. A `secret` setting's
 * value is never shown: not in an error, not in a log line (see secretValues in src/settings.ts).
 */

export type Meta = { description: string; example: string; secret?: boolean };

/** The parsed values of a folder's settings, as the rest of the code reads them. */
export type SettingsOf<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;

export const list = (text: string): string[] =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

export const csv = (meta: Meta, item: z.ZodType<string, string> = z.string()) => z.string().default('').transform(list).pipe(z.array(item)).meta(meta);

export const int = (fallback: number, min: number, max: number, meta: Meta) =>
  z.coerce
    .number({ error: 'expected a whole number' })
    .int('expected a whole number')
    .min(min, `expected at least ${min}`)
    .max(max, `expected at most ${max}`)
    .default(fallback)
    .meta(meta);

export const bool = (meta: Meta) =>
  z
    .enum(['true', 'false', '1', '0', ''], { error: 'expected true or false' })
    .default('false')
    .transform((value) => value === 'true' || value === '1')
    .meta(meta);

export const duration = (fallback: string, meta: Meta) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration such as 500ms, 10s, 15m or 2h' });
        return z.NEVER;
      }
      return ms;
    })
    .meta(meta);

/** A duration, or `off` (undefined). */
export const durationOrOff = (fallback: string, meta: Meta) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      if (text === 'off') return undefined;
      const ms = parseDuration(text);
      if (ms === undefined || ms < 1) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration such as 15m or 1h, or off' });
        return z.NEVER;
      }
      return ms;
    })
    .meta(meta);

const blankToUndefined = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value);

export const optionalText = (meta: Meta) => z.string().optional().transform(blankToUndefined).meta(meta);

/**
 * A secret sent as one token (an API key, a client secret, a bearer token): a space, a line break
 * or a control character in it is a copy-and-paste slip that would only fail at the first call.
 */
export const secretToken = (meta: Omit<Meta, 'secret'>) =>
  z
    .string()
    .optional()
    .transform(blankToUndefined)
    .refine((value) => value === undefined || !/[\s\p{Cc}]/u.test(value), 'must be one token: no spaces, line breaks or control characters')
    .meta({ ...meta, secret: true });

const httpUrl = () => z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).transform((value) => value.replace(/\/+$/, ''));
export const url = (fallback: string, meta: Meta) => httpUrl().default(fallback).meta(meta);
export const optionalUrl = (meta: Meta) => httpUrl().optional().meta(meta);

/** `<requests>/<window>` such as 100/15m, or `off` (undefined). */
export const rateLimit = (fallback: string, meta: Meta) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      if (text === 'off') return undefined;
      const [count, window] = text.split('/');
      const requests = Number(count);
      const windowMs = window === undefined ? undefined : parseDuration(window);
      if (!Number.isInteger(requests) || requests < 1 || windowMs === undefined || windowMs < 1) {
        ctx.addIssue({ code: 'custom', message: 'expected <requests>/<window> such as 100/15m, or off' });
        return z.NEVER;
      }
      return { requests, windowMs };
    })
    .meta(meta);
