import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { parseAllDocuments } from 'yaml';

/* Readers for the deployment files under deploy/, shared by the deploy tests. */

export const repoRoot = path.resolve(import.meta.dirname, '../../..');
export const deployDir = path.join(repoRoot, 'deploy');

export type Yaml = Record<string, unknown>;
export interface YamlFile {
  file: string;
  docs: Yaml[];
  errors: string[];
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
}

/** Every .yaml/.yml file under deploy/, each document parsed. */
export function deployYamlFiles(): YamlFile[] {
  return walk(deployDir)
    .filter((file) => /\.ya?ml$/.test(file))
    .map((file) => {
      const parsed = parseAllDocuments(readFileSync(file, 'utf8'));
      const list = Array.isArray(parsed) ? parsed : [parsed];
      return {
        file: path.relative(repoRoot, file),
        docs: list.map((doc) => doc.toJS() as Yaml).filter((doc) => doc !== null),
        errors: list.flatMap((doc) => doc.errors.map((error) => error.message)),
      };
    });
}

export const isBridgeImage = (image: unknown) => typeof image === 'string' && /(^|\/)crm-sync-bridge(:|$)/.test(image);

export interface DockerInstruction {
  instruction: string;
  args: string;
}

/** Dockerfile instructions in order, continuation lines joined, comments dropped. */
export function dockerfileInstructions(text = readFileSync(path.join(deployDir, 'Dockerfile'), 'utf8')): DockerInstruction[] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [instruction = '', ...rest] = line.split(/\s+/);
      return { instruction: instruction.toUpperCase(), args: rest.join(' ') };
    });
}
