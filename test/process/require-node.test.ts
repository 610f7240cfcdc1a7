import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

// @ts-expect-error -- a plain JavaScript module (it must run on old Node versions), without types
import { nodeProblem } from '../../scripts/require-node.mjs';

const check = nodeProblem as (version: string) => string | undefined;

describe('the Node version preflight (npm preinstall, prestart, pretest)', () => {
  it('when Node is older than 24, then it names the version needed and the one found', () => {
    expect(check('v20.20.2')).toBe('crm-sync-bridge needs Node.js 24 or later (it runs its TypeScript directly); found v20.20.2.');
    expect(check('v22.11.0')).toMatch(/needs Node\.js 24 or later .*found v22\.11\.0\.$/);
  });

  it('when Node is 24 or later, then it has nothing to say', () => {
    expect(check('v24.0.0')).toBeUndefined();
    expect(check('v25.1.0')).toBeUndefined();
  });

  it('when run by this Node (24), then it exits 0 and prints nothing', () => {
    const run = spawnSync(process.execPath, [fileURLToPath(new URL('../../scripts/require-node.mjs', import.meta.url))], { encoding: 'utf8' });

    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });
});
