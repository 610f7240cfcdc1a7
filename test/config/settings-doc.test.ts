import { readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { renderSettingsTable, settingsSection } from '../../scripts/settings-docs.ts';
import { settingNames } from '../../src/settings.ts';

const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/configuration.md'), 'utf8');

describe('docs/configuration.md settings table', () => {
  it('when compared with the table generated from the config schema, then it is identical', () => {
    // Arrange
    const generated = renderSettingsTable();

    // Act
    const inDoc = settingsSection(doc);

    // Assert
    expect(inDoc, 'the settings table in docs/configuration.md is stale: run npm run docs:settings').toBe(generated);
  });

  it('when generated, then it has one row per setting, in schema order', () => {
    // Arrange
    const rows = renderSettingsTable().split('\n').slice(2);

    // Act
    const names = rows.map((row) => /^\| `([A-Z0-9_]+)` \|/.exec(row)?.[1]);

    // Assert
    expect(names).toEqual(settingNames());
  });
});
