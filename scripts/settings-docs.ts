import { z } from 'zod';

import { configSchema, settingMeta, settingNames } from '../src/settings.ts';

/*
 * Documentation generated from the config schema, so docs/configuration.md's table and .env.example cannot
 * drift from what the service accepts. `npm run docs:settings` rewrites both; tests fail when
 * either differs from the schema.
 */

export interface SettingDoc {
  name: string;
  description: string;
  example: string;
  /** The value used when the variable is unset, as it would be written in the environment. */
  defaultValue: string | undefined;
  secret: boolean;
}

export const SETTINGS_START = '<!-- settings:start -->';
export const SETTINGS_END = '<!-- settings:end -->';

/** The default as the operator would write it: descends transforms to the input side. */
function inputDefault(schema: z.ZodType): string | undefined {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault) {
    const value: unknown = schema.def.defaultValue;
    return Array.isArray(value) ? value.join(',') : String(value);
  }
  if (schema instanceof z.ZodPipe) return inputDefault(schema.in as z.ZodType);
  return undefined;
}

export function settingDocs(): SettingDoc[] {
  const shape = configSchema.shape as Record<string, z.ZodType>;
  return settingNames().map((name) => {
    const meta = settingMeta(name);
    if (!meta) throw new Error(`setting ${name} has no .meta({ description, example })`);
    return { name, description: meta.description, example: meta.example, defaultValue: inputDefault(shape[name]!), secret: meta.secret === true };
  });
}

const cell = (text: string) => text.replaceAll('|', '\\|');
const prose = (text: string) => cell(text).replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const code = (text: string) => (text === '' ? '*(empty)*' : `\`${cell(text)}\``);

/** The Markdown settings table of docs/configuration.md. */
export function renderSettingsTable(docs = settingDocs()): string {
  const rows = docs.map(
    (doc) =>
      `| \`${doc.name}\` | ${doc.defaultValue === undefined ? '*(unset)*' : code(doc.defaultValue)} | ${code(doc.example)} | ${doc.secret ? '**Secret.** ' : ''}${prose(doc.description)} |`,
  );
  return ['| Setting | Default | Example | Description |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** Replaces what lies between the settings markers of a document; throws when the markers are missing. */
export function replaceSettingsSection(readme: string, table = renderSettingsTable()): string {
  const start = readme.indexOf(SETTINGS_START);
  const end = readme.indexOf(SETTINGS_END);
  if (start < 0 || end < start) throw new Error(`the document lacks the ${SETTINGS_START} … ${SETTINGS_END} markers`);
  return `${readme.slice(0, start + SETTINGS_START.length)}\n${table}\n${readme.slice(end)}`;
}

/** The settings section currently in a document (between the markers), or undefined. */
export function settingsSection(readme: string): string | undefined {
  const start = readme.indexOf(SETTINGS_START);
  const end = readme.indexOf(SETTINGS_END);
  return start < 0 || end < start ? undefined : readme.slice(start + SETTINGS_START.length, end).trim();
}

// Node's .env parser ends an unquoted value at `#` and trims it; single quotes keep it literal.
const envValue = (value: string) => (/[#\s"'\\]/.test(value) && !value.includes("'") ? `'${value}'` : value);

/**
 * `.env.example`: a comment line per setting, then `NAME=default`. A setting without a default
 * is written empty when the schema accepts empty, else commented out with its example, so that
 * copying the file to `.env` always yields a configuration that starts.
 */
export function renderEnvExample(docs = settingDocs()): string {
  const shape = configSchema.shape as Record<string, z.ZodType>;
  const header = [
    '# crm-sync-bridge settings. Copy to .env (read at start when present) and change what you need;',
    '# variables set in the real environment win over this file. Values below are the defaults.',
    '# Generated from the settings each folder declares (src/*/settings.ts) by `npm run docs:settings`; test/config/env-example.test.ts keeps it in step.',
  ];
  const blocks = docs.map((doc) => {
    const comment = `# ${doc.secret ? 'Secret: keep it out of version control. ' : ''}${doc.description.replace(/\.$/, '')}. Example: ${doc.example}`;
    if (doc.defaultValue !== undefined) return `${comment}\n${doc.name}=${envValue(doc.defaultValue)}`;
    return shape[doc.name]!.safeParse('').success ? `${comment}\n${doc.name}=` : `${comment}\n# ${doc.name}=${doc.example}`;
  });
  return `${[header.join('\n'), ...blocks].join('\n\n')}\n`;
}
