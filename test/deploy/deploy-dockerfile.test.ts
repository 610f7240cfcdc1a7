import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

import { afterEach, describe, expect, it } from 'vitest';

import { PRODUCTION_NODE_FLAGS } from '../../bench/lib/production-node-flags.ts';
import { settingNames } from '../../src/settings.ts';
import { killAllBridges, spawnBridge } from '../support/spawn-bridge.ts';
import { deployDir, dockerfileInstructions, repoRoot } from './support/deploy-files.ts';

const run = promisify(execFile);
afterEach(killAllBridges);

const instructions = dockerfileInstructions();
const all = (name: string) => instructions.filter((item) => item.instruction === name);
const finalStage = instructions.slice(instructions.findLastIndex((item) => item.instruction === 'FROM'));
const finalEnv = new Map(
  finalStage
    .filter((item) => item.instruction === 'ENV')
    .flatMap((item) => [...item.args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)].map((match) => [match[1]!, match[2]!] as const)),
);
const healthcheckCommand = (): string[] => JSON.parse(/CMD\s+(\[.*\])\s*$/.exec(all('HEALTHCHECK')[0]?.args ?? '')?.[1] ?? '[]');

describe('deploy/Dockerfile', () => {
  it('when built, then every stage starts from node:24-slim, dependencies come from npm ci --omit=dev, and it runs as a non-root user', () => {
    // Arrange
    const stages = all('FROM').map((item) => item.args.split(/\s+/)[0]);

    // Act
    const user = finalStage.filter((item) => item.instruction === 'USER').at(-1)?.args;

    // Assert
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(new Set(stages)).toEqual(new Set(['node:24-slim']));
    expect(all('RUN').some((item) => /\bnpm ci --omit=dev\b/.test(item.args))).toBe(true);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it('when it sets environment variables, then each is a config setting, NODE_ENV is production and EXPOSE is PORT', () => {
    // Arrange
    const known = new Set(settingNames());

    // Act
    const exposed = all('EXPOSE').map((item) => item.args);

    // Assert
    expect([...finalEnv.keys()].filter((name) => !known.has(name))).toEqual([]);
    expect(finalEnv.get('NODE_ENV')).toBe('production');
    expect(exposed).toEqual([finalEnv.get('PORT')]);
  });

  it('when stopped, then it gets SIGTERM and it starts node src/server.ts, which exists, with the heap limit the benchmarks use', () => {
    // Arrange
    const cmd: string[] = JSON.parse(finalStage.find((item) => item.instruction === 'CMD')?.args ?? '[]');

    // Act
    const stopSignal = all('STOPSIGNAL').map((item) => item.args);

    // Assert
    expect(stopSignal).toEqual(['SIGTERM']);
    expect(cmd).toEqual(['node', ...PRODUCTION_NODE_FLAGS, 'src/server.ts']);
    expect(existsSync(path.join(repoRoot, cmd.at(-1)!))).toBe(true);
  });

  it('when it copies files from the context, then they exist and Dockerfile.dockerignore lets them through', () => {
    // Arrange
    const ignore = readFileSync(path.join(deployDir, 'Dockerfile.dockerignore'), 'utf8').split('\n');

    // Act
    const sources = all('COPY')
      .filter((item) => !item.args.startsWith('--from'))
      .flatMap((item) => item.args.split(/\s+/).slice(0, -1));

    // Assert
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(path.join(repoRoot, source)), source).toBe(true);
      expect(ignore, source).toContain(`!${source}`);
    }
  });

  it('when its HEALTHCHECK command runs against a live bridge, then it exits 0, and 1 once the bridge is gone', async () => {
    // Arrange
    const [node, ...args] = healthcheckCommand();
    const bridge = await spawnBridge();
    const port = new URL(bridge.url).port;
    const check = () =>
      run(process.execPath, args, { env: { PORT: port } }).then(
        () => 0,
        (error: { code?: number }) => error.code,
      );

    // Act
    const whileUp = await check();
    await bridge.kill();
    const whenGone = await check();

    // Assert
    expect(node).toBe('node');
    expect(args.join(' ')).toContain('/healthz');
    expect(whileUp).toBe(0);
    expect(whenGone).toBe(1);
  });
});
