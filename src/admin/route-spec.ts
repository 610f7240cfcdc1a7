import type { z } from 'zod';

/**
 * One admin route described once: the router validates with these schemas and the OpenAPI
 * document is generated from the same ones, so the two cannot drift apart.
 */
export interface AdminRouteSpec<
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express path (`/admin/deliveries/:id`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** Changes state: logged with the key fingerprint and what changed. */
  mutating: boolean;
  params?: P;
  query?: Q;
  /** A JSON request body. */
  body?: B;
  /** The answer on success: a JSON body, or none at all (204). */
  success: { status: 200 | 201 | 202; description: string; schema: z.ZodType } | { status: 204; description: string };
  /** Statuses this route may answer besides success, 400, 401, 503 and 500. */
  errors?: Array<404 | 409 | 413 | 415 | 502>;
}

/** Keeps the literal schema types of a spec, so handlers get typed inputs. */
export const defineRoute = <
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  spec: AdminRouteSpec<P, Q, B>,
): AdminRouteSpec<P, Q, B> => spec;

/** The parsed value of an optional schema slot (`params?: P` reads as `P | undefined`). */
export type InputOf<S> = [Exclude<S, undefined>] extends [never]
  ? undefined
  : Exclude<S, undefined> extends z.ZodType
    ? z.output<Exclude<S, undefined>>
    : undefined;

/** `/admin/deliveries/:id` → `/admin/deliveries/{id}` (OpenAPI path templating). */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
