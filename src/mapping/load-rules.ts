import { readFileSync } from 'node:fs';

import type { z } from 'zod';

import type { Config } from '../core/config.ts';
import { builtInRules, resolveRules } from './default-rules.ts';
import { mappingFileSchema, type MappingRules } from './rules-schema.ts';

/** An unusable MAPPING_FILE: one line per problem, each naming the JSON path in the file. */
export class MappingRulesError extends Error {
  readonly problems: string[];
  constructor(file: string, problems: string[]) {
    super(`invalid mapping file ${file}:\n${problems.map((line) => `  ${line}`).join('\n')}`);
    this.name = 'MappingRulesError';
    this.problems = problems;
  }
}

type PathKey = PropertyKey;

function pathText(path: readonly PathKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('');
}

function valueAt(root: unknown, path: readonly PathKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** `sObjects.Event.titleField: expected string, got number 42` */
export function formatRulesIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const where = pathText(issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return `${where}: expected ${issue.expected}, got ${describe(valueAt(input, issue.path))}`;
    case 'unrecognized_keys':
      return issue.keys.map((key) => `${pathText([...issue.path, key])}: unknown key (misspelt?)`).join('\n');
    case 'invalid_key':
      return `${where}: ${issue.issues.map((inner) => inner.message).join('; ')}`;
    default:
      return `${where}: ${issue.message}`;
  }
}

/** The REMAP_TRIGGER_* and IMPORT_PROCESS_MEETINGS defaults a mapping file is resolved against. */
export type RulesFlagSettings = Pick<Config, 'REMAP_TRIGGER_SUMMARY' | 'REMAP_TRIGGER_AI_SIGNALS'> & Partial<Pick<Config, 'IMPORT_PROCESS_MEETINGS'>>;

/** Parses and resolves the text of a mapping file; throws MappingRulesError naming each problem. */
export function parseRules(text: string, file: string, config: RulesFlagSettings): MappingRules {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new MappingRulesError(file, [`not valid JSON: ${(error as Error).message}`]);
  }
  return rulesFromJson(json, file, config);
}

/** Checks and resolves a mapping file already read as JSON (MAPPING_FILE, or one proposed to the admin preview). */
export function rulesFromJson(json: unknown, file: string, config: RulesFlagSettings): MappingRules {
  const result = mappingFileSchema.safeParse(json);
  if (!result.success) {
    throw new MappingRulesError(
      file,
      result.error.issues.flatMap((issue) => formatRulesIssue(issue, json).split('\n')),
    );
  }
  return resolveRules(result.data, flagsOf(config));
}

/** The rules for this process: MAPPING_FILE when set, else the built-in defaults. Read once at start. */
export function loadRules(
  config: Pick<Config, 'MAPPING_FILE' | 'REMAP_TRIGGER_SUMMARY' | 'REMAP_TRIGGER_AI_SIGNALS'> & Partial<Pick<Config, 'IMPORT_PROCESS_MEETINGS'>>,
): MappingRules {
  const flags = flagsOf(config);
  if (config.MAPPING_FILE === undefined) return builtInRules(flags);
  let text: string;
  try {
    text = readFileSync(config.MAPPING_FILE, 'utf8');
  } catch (error) {
    throw new MappingRulesError(config.MAPPING_FILE, [`cannot read MAPPING_FILE: ${(error as Error).message}`]);
  }
  return parseRules(text, config.MAPPING_FILE, config);
}

function flagsOf(config: RulesFlagSettings) {
  return {
    triggerSummary: config.REMAP_TRIGGER_SUMMARY,
    triggerAiSignals: config.REMAP_TRIGGER_AI_SIGNALS,
    ...(config.IMPORT_PROCESS_MEETINGS === undefined ? {} : { processImportedMeeting: config.IMPORT_PROCESS_MEETINGS }),
  };
}
