import { readFileSync } from 'node:fs';

/** `crm-sync-bridge/<version>`: names the bridge and its version to Momentum. */
export function bridgeUserAgent(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string };
  return `${manifest.name ?? 'crm-sync-bridge'}/${manifest.version ?? '0.0.0'}`;
}
