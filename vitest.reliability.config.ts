import { defineConfig } from 'vitest/config';

/**
 * The reliability suite: each scenario runs the real bridge as a child process against
 * loopback fakes and breaks something on purpose. Files run one at a time: the scenarios load the
 * machine (2 000 posts, SIGKILLs, PostgreSQL terminations) and must not starve each other.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 150_000,
    hookTimeout: 30_000,
    fileParallelism: false,
    // The summary lines (console.log) are the CI evidence: show them even for passing tests.
    silent: false,
  },
});
