import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

import { describe, expect, it } from 'vitest';

import { parseConfig, settingMeta, settingNames } from '../../src/settings.ts';

/* The schema is read at test time, so a setting added to a folder's settings.ts without its line here fails
 * this test. `npm run docs:settings` regenerates the file from the schema. */
const envExample = readFileSync(path.resolve(import.meta.dirname, '../../.env.example'), 'utf8');
const lines = envExample.split('\n');
const ACTIVE = /^([A-Z][A-Z0-9_]*)=/;
const COMMENTED = /^#\s*([A-Z][A-Z0-9_]*)=/;
const listedName = (line: string) => ACTIVE.exec(line)?.[1] ?? COMMENTED.exec(line)?.[1];
const listed = lines.map(listedName).filter((name): name is string => name !== undefined);

describe('.env.example', () => {
  it('when compared with the config schema, then it lists every setting and nothing else', () => {
    // Arrange
    const schema = settingNames();

    // Act
    const missing = schema.filter((name) => !listed.includes(name));
    const extra = listed.filter((name) => !schema.includes(name));

    // Assert
    expect(missing, 'settings missing from .env.example (run npm run docs:settings)').toEqual([]);
    expect(extra, 'names in .env.example that the schema does not know').toEqual([]);
  });

  it('when a setting is listed, then it is listed once, right under a comment line', () => {
    // Arrange
    const positions = lines.flatMap((line, index) => (listedName(line) === undefined ? [] : [index]));

    // Act
    const uncommented = positions.filter((index) => !(lines[index - 1] ?? '').startsWith('#') || listedName(lines[index - 1] ?? '') !== undefined);
    const duplicates = listed.filter((name, index) => listed.indexOf(name) !== index);

    // Assert
    expect(uncommented.map((index) => lines[index])).toEqual([]);
    expect(duplicates).toEqual([]);
  });

  it('when copied to .env unchanged, then the configuration it gives is valid', () => {
    // Arrange: the same parser process.loadEnvFile uses.
    const env = parseEnv(envExample);

    // Act
    const parse = () => parseConfig(env);

    // Assert
    expect(parse).not.toThrow();
  });

  it('when a setting is secret, then the file gives it no value', () => {
    // Arrange
    const env = parseEnv(envExample);

    // Act
    const secretsWithValues = settingNames().filter((name) => settingMeta(name)?.secret === true && (env[name] ?? '') !== '');

    // Assert
    expect(secretsWithValues).toEqual([]);
  });
});
