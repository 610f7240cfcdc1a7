import { z } from 'zod';

import { errorSchema } from './response-schemas.ts';
import { type AdminRouteSpec, openApiPath } from './route-spec.ts';

type Json = Record<string, unknown>;

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid path, query or body (details lists each problem)',
  401: 'Missing or wrong admin API key',
  404: 'No such record',
  409: 'Not allowed in the current state (details.state)',
  413: 'Body too large',
  415: 'Body is not application/json',
  500: 'Internal error',
  502: 'An outside service failed: a calendar provider refused a watch (the change is saved and retried by the next upkeep round), or a lookup of the mapping preview failed',
  503: 'admin API disabled: set ADMIN_API_KEYS',
};

/** zod's JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) without the per-document `$schema`. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

function parameters(spec: AdminRouteSpec): Json[] {
  const list: Json[] = [];
  for (const [where, object] of [
    ['path', spec.params],
    ['query', spec.query],
  ] as const) {
    if (object === undefined) continue;
    const { properties = {}, required = [] } = jsonSchema(object, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(properties)) {
      const { description, ...rest } = schema;
      list.push({ name, in: where, required: where === 'path' || required.includes(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  return list;
}

const jsonContent = (schema: Json) => ({ 'application/json': { schema } });

function operation(spec: AdminRouteSpec): Json {
  const statuses = [400, 401, ...(spec.errors ?? []), 500, 503];
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: ['admin'],
    parameters: parameters(spec),
    ...(spec.body ? { requestBody: { required: true, content: jsonContent(jsonSchema(spec.body, 'input')) } } : {}),
    responses: {
      [String(spec.success.status)]: {
        description: spec.success.description,
        ...('schema' in spec.success ? { content: jsonContent(jsonSchema(spec.success.schema, 'output')) } : {}),
      },
      ...Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }])),
    },
  };
}

/** The OpenAPI 3.1 document of the admin API, generated from the routes' zod schemas. */
export function buildOpenApi(routes: readonly AdminRouteSpec[], version: string): Json {
  const paths: Record<string, Json> = {};
  for (const spec of routes) (paths[openApiPath(spec.path)] ??= {})[spec.method] = operation(spec);
  const errorResponses = Object.fromEntries(
    Object.entries(ERROR_TEXT).map(([status, description]) => [
      `Error${status}`,
      { description, content: jsonContent({ $ref: '#/components/schemas/Error' }) },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: { title: 'crm-sync-bridge admin API', version, description: 'Inbound events, deliveries to Momentum, replay and stats.' },
    security: [{ bearerKey: [] }, { headerKey: [] }],
    paths,
    components: {
      schemas: { Error: jsonSchema(errorSchema, 'output') },
      responses: errorResponses,
      securitySchemes: {
        bearerKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <one of ADMIN_API_KEYS>' },
        headerKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}
