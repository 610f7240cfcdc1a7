/**
 * The flags deploy/Dockerfile's CMD starts node with (test/deploy/deploy-dockerfile.test.ts
 * keeps the two equal). Every process of a benchmark that stands for the bridge runs with them, so
 * memory is measured with the heap the deployment gives the bridge, not with the defaults V8
 * derives from this 24 GB machine (a 4 GB heap limit, and a young generation of 64 MB that a
 * fast replay or enqueue touches whole).
 */
export const PRODUCTION_NODE_FLAGS = ['--max-old-space-size=384', '--max-semi-space-size=8'] as const;

/** Every benchmarked process's node flags; BENCH_CPU_PROF=<dir> adds a V8 CPU profile written there at exit (open it in Chrome DevTools). */
export const benchNodeFlags = (): string[] => [
  ...PRODUCTION_NODE_FLAGS,
  ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
];
