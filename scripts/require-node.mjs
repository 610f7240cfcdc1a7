// Plain JavaScript on purpose: it must run on the old Node it refuses. The bridge runs its
// TypeScript sources directly, which needs Node 24's type stripping. npm runs it before
// install, start and test; on a Node older than 24 it prints one line and exits 1.
import { fileURLToPath } from 'node:url';

/** The one line to print for this Node version, or undefined when it is new enough. */
export function nodeProblem(version) {
  const major = Number(String(version).replace(/^v/, '').split('.')[0]);
  return major >= 24 ? undefined : `crm-sync-bridge needs Node.js 24 or later (it runs its TypeScript directly); found ${version}.`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problem = nodeProblem(process.version);
  if (problem !== undefined) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
