import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { CONSOLE_DIR } from '../../routes/admin-console.ts';
import { type AdminApp, startAdminApp } from './support/admin-app.ts';

const csp = (header: string | undefined) =>
  new Map(
    (header ?? '')
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name, ...values]) => [name ?? '', values.join(' ')]),
  );

describe('GET /admin/ (operator console)', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when the console is opened without a key, then its page and assets are served under a strict CSP', async () => {
    harness = await startAdminApp();

    const page = await request(harness.app).get('/admin/');
    const script = await request(harness.app).get('/admin/assets/main.js');
    const style = await request(harness.app).get('/admin/assets/console.css');

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<script type="module" src="assets/main.js"></script>');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(style.status).toBe(200);
    expect(style.headers['content-type']).toMatch(/^text\/css/);
    const policy = csp(page.headers['content-security-policy']);
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('style-src')).toBe("'self'");
    expect(policy.get('connect-src')).toBe("'self'");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(policy.get('require-trusted-types-for')).toBe("'script'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(script.headers['content-security-policy']).toBe(page.headers['content-security-policy']);
  });

  it('when /admin is asked for without the slash, then it redirects to /admin/ (the page uses relative URLs)', async () => {
    harness = await startAdminApp();

    const response = await request(harness.app).get('/admin');

    expect(response.status).toBe(301);
    expect(response.headers.location).toBe('/admin/');
  });

  it('when the console files are read, then they hold no inline script, no inline style, no external origin and no HTML sink', () => {
    const files = [
      path.join(CONSOLE_DIR, 'index.html'),
      ...readdirSync(path.join(CONSOLE_DIR, 'assets')).map((name) => path.join(CONSOLE_DIR, 'assets', name)),
    ];
    const html = readFileSync(path.join(CONSOLE_DIR, 'index.html'), 'utf8');

    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="assets/main.js">']);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // The SVG namespace is a name, not a fetch: every other absolute URL would be an outside origin.
      expect(text.replaceAll('http://www.w3.org/2000/svg', ''), file).not.toMatch(/https?:\/\//);
      expect(text, file).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    }
  });

  it('when a missing asset is asked for without a key, then it is refused like any admin path', async () => {
    harness = await startAdminApp();

    const response = await request(harness.app).get('/admin/assets/nope.js');

    expect(response.status).toBe(401);
  });
});
