import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { renderEnvExample, renderSettingsTable, replaceSettingsSection } from './settings-docs.ts';

/*
 * node scripts/settings-table.ts           prints the settings table (Markdown)
 * node scripts/settings-table.ts --write   rewrites docs/configuration.md's settings section and .env.example
 */

const root = path.resolve(import.meta.dirname, '..');

if (process.argv.includes('--write')) {
  const docPath = path.join(root, 'docs', 'configuration.md');
  writeFileSync(docPath, replaceSettingsSection(readFileSync(docPath, 'utf8')));
  writeFileSync(path.join(root, '.env.example'), renderEnvExample());
  process.stdout.write('docs/configuration.md settings table and .env.example rewritten from the settings schema (src/settings.ts)\n');
} else {
  process.stdout.write(`${renderSettingsTable()}\n`);
}
