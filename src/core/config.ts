import type { SettingsOf } from './setting-kinds.ts';
import type { coreSettings } from './settings.ts';

/**
 * The bridge's settings as one typed object. Each folder declares its own settings beside its
 * code (src/<folder>/settings.ts: zod schemas with a description and an example each) and adds
 * their parsed types to this interface by declaration merging, so every file reads `Config`
 * from here while the core imports no folder. src/settings.ts composes the schemas, parses the
 * environment and checks that the composed type and this interface name the same settings.
 */
export interface Config extends SettingsOf<typeof coreSettings> {}

/** Settings that cannot work, one line per problem, each naming its setting and never a secret's value. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[], options: { cause?: unknown } = {}) {
    super(`invalid configuration:\n${problems.join('\n')}`, options);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
