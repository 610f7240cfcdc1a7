import { Validator } from '@seriousme/openapi-schema-validator';
import express, { type Router } from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { adminRouter } from '../../routes/admin.ts';
import { openApiPath } from '../../src/admin/route-spec.ts';
import type { CalendarManager } from '../../src/calendar/calendar-manager.ts';
import { parseConfig } from '../../src/settings.ts';
import type { Store } from '../../src/store/types.ts';
import { captureLogs } from '../support/log-capture.ts';
import { type AdminApp, KEY, startAdminApp } from './support/admin-app.ts';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** The routes express actually holds, read from the router itself rather than from the specs. */
function registeredRoutes(router: Router): Array<{ method: string; path: string }> {
  return (router.stack as RouteLayer[]).flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods)
          .filter((method) => method !== '_all')
          .map((method) => ({ method, path: layer.route!.path }))
      : [],
  );
}

describe('GET /admin/openapi.json', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when the document is fetched, then it is valid OpenAPI 3.1', async () => {
    harness = await startAdminApp();

    const response = await harness.get('/admin/openapi.json');

    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('when the admin router is built, then every route it registers is in the document with its method', async () => {
    harness = await startAdminApp();
    const document = (await harness.get('/admin/openapi.json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    const router = adminRouter({ config: parseConfig({ ADMIN_API_KEYS: 'k'.repeat(16) }), store: {} as Store, logger: captureLogs().logger });

    const routes = registeredRoutes(router);

    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const { method, path } of routes) expect(document.paths[openApiPath(path)]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    expect(documented.sort()).toEqual(routes.map(({ method, path }) => `${method} ${openApiPath(path)}`).sort());
  });

  it('when a route takes a body, query or path id, then the document describes it from the zod schemas', async () => {
    harness = await startAdminApp();

    const { paths } = (await harness.get('/admin/openapi.json').expect(200)).body;

    const bulk = paths['/admin/deliveries/replay'].post;
    expect(bulk.requestBody.content['application/json'].schema.properties.dryRun).toMatchObject({ type: 'boolean', default: true });
    expect(bulk.requestBody.content['application/json'].schema.properties.filter.properties.state.enum).toEqual(['dead', 'succeeded', 'cancelled', 'skipped']);
    const list = paths['/admin/deliveries'].get.parameters;
    expect(list.find((parameter: { name: string }) => parameter.name === 'limit')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', maximum: 200 },
    });
    expect(paths['/admin/deliveries/{id}/replay'].post.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(Object.keys(paths['/admin/deliveries/{id}/replay'].post.responses)).toEqual(expect.arrayContaining(['202', '401', '404', '409', '503']));
    expect(paths['/admin/meetings/remap'].post.requestBody.content['application/json'].schema.required).toContain('salesforceRecords');
    expect(list.find((parameter: { name: string }) => parameter.name === 'q')).toMatchObject({ in: 'query', required: false, schema: { maxLength: 200 } });
    const items = paths['/admin/deliveries'].get.responses['200'].content['application/json'].schema.properties.items.items;
    expect(Object.keys(items.properties)).toEqual(expect.arrayContaining(['title', 'sourceRef', 'startTime', 'salesforceIds']));
    const activity = paths['/admin/activity'].get;
    expect(activity.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(['since', 'until', 'bucket']);
    expect(activity.parameters[2]).toMatchObject({ required: false, schema: { enum: ['minute', 'hour'], default: 'hour' } });
    expect(Object.keys(activity.responses)).toEqual(expect.arrayContaining(['200', '400', '401']));
    expect(paths['/admin/stats'].get.responses['200'].content['application/json'].schema.properties.quota.anyOf).toHaveLength(2);
  });

  it('when the bridge manages calendars, then the /admin/calendars routes are registered and documented with the others', async () => {
    const calendars: CalendarManager = {
      list: () => Promise.resolve([]),
      add: () => Promise.reject(new Error('not called')),
      remove: () => Promise.resolve(false),
    };
    const router = adminRouter({
      config: parseConfig({ ADMIN_API_KEYS: KEY }),
      store: {} as Store,
      logger: captureLogs().logger,
      calendars: { google: calendars },
    });

    const response = await request(express().use(router)).get('/admin/openapi.json').set('Authorization', `Bearer ${KEY}`);

    expect(response.status).toBe(200);
    const document = response.body as { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>> };
    const routes = registeredRoutes(router).map(({ method, path }) => `${method} ${openApiPath(path)}`);
    expect(routes).toEqual(expect.arrayContaining(['get /admin/calendars', 'post /admin/calendars', 'delete /admin/calendars/{calendarId}']));
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    expect(documented.sort()).toEqual(routes.sort());
    expect(Object.keys(document.paths['/admin/calendars']!.post!.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '415', '502']));
    expect(document.paths['/admin/calendars']!.post!.requestBody).toMatchObject({
      content: { 'application/json': { schema: { properties: { calendarId: { type: 'string', format: 'email' } }, required: ['calendarId'] } } },
    });
    expect(document.paths['/admin/calendars/{calendarId}']!.delete!.responses['204']).toEqual({ description: 'No longer watched' });
    const result = await new Validator().validate(response.body);
    expect(result.errors ?? []).toEqual([]);
  });
});
