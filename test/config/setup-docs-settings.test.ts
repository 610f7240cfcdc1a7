import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { settingNames } from '../../src/settings.ts';

/*
 * The setup pages (docs/setup-*.md, docs/going-live.md) are what an operator follows to configure
 * a real org, so every setting they name must exist (a renamed setting left in them is a step that
 * silently does nothing), and each page names every setting of the part it sets up.
 */

const DOCS = path.resolve(import.meta.dirname, '../../docs');
const PAGES = readdirSync(DOCS)
  .filter((name) => /^setup-.+\.md$/.test(name) || name === 'going-live.md')
  .sort();
const read = (page: string) => readFileSync(path.join(DOCS, page), 'utf8');

// Upper-case words with an underscore that are not settings: Salesforce's API error codes, quoted
// in docs/setup-salesforce.md's troubleshooting table as Salesforce answers them.
const NOT_SETTINGS = new Set(['INVALID_TYPE', 'INVALID_FIELD', 'API_DISABLED_FOR_ORG', 'API_CURRENTLY_DISABLED']);

const namesIn = (text: string): string[] => [...new Set(text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? [])].filter((name) => !NOT_SETTINGS.has(name));

/** The settings each page sets up, so must name: a prefix, or names one by one. */
const OWNED: Record<string, (name: string) => boolean> = {
  'setup-salesforce.md': (name) => name.startsWith('SALESFORCE_') || name === 'REMATCH_SWEEP_INTERVAL',
  'setup-google.md': (name) => name.startsWith('GOOGLE_') || name === 'PUBLIC_BASE_URL',
  'setup-momentum.md': (name) => name.startsWith('MOMENTUM_'),
  'going-live.md': (name) => ['TRUST_PROXY', 'PUBLIC_BASE_URL', 'ADMIN_API_KEYS'].includes(name),
};

describe('setup pages and the settings schema', () => {
  it('when the setup pages are listed, then each of them is one this test knows what it sets up', () => {
    expect(PAGES).toEqual(Object.keys(OWNED).sort());
  });

  it.each(PAGES)('when %s names a setting, then the settings schema has it', (page) => {
    const known = new Set(settingNames());

    const unknown = namesIn(read(page)).filter((name) => !known.has(name));

    expect(unknown, `${page} names settings the schema does not have (renamed or removed?)`).toEqual([]);
  });

  it.each(PAGES)('when the schema has a setting %s sets up, then the page names it', (page) => {
    const named = new Set(namesIn(read(page)));

    const missing = settingNames().filter((name) => OWNED[page]!(name) && !named.has(name));

    expect(missing, `${page} does not mention these settings of its part`).toEqual([]);
  });
});
