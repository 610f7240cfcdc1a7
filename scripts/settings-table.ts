import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderEnvExample, renderSettingsTable, replaceSettingsSection } from './settings-docs.ts';

/*
 * node scripts/settings-table.ts           prints the README settings table (Markdown)
 * node scripts/settings-table.ts --write   rewrites README.md's settings section and .env.example
 */

const root = path.resolve(import.meta.dirname, '..');

if (process.argv.includes('--write')) {
  const readmePath = path.join(root, 'README.md');
  writeFileSync(readmePath, replaceSettingsSection(readFileSync(readmePath, 'utf8')));
  writeFileSync(path.join(root, '.env.example'), renderEnvExample());
  process.stdout.write('README.md settings table and .env.example rewritten from src/config.ts\n');
} else {
  process.stdout.write(`${renderSettingsTable()}\n`);
}
