import { readFileSync } from 'node:fs';

/** The bridge's version as package.json names it (the OpenAPI document, the health answer, the instances table). */
export const PACKAGE_VERSION: string =
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '0.0.0';
