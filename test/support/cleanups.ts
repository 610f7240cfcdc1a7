import { afterEach } from 'vitest';

export type Cleanup = () => Promise<void> | void;

/**
 * Closers of what each test opens, run after it, last opened first (a bridge stops before the
 * database under it is dropped). Call once per file or describe; push a closer as soon as a thing
 * is open, so a failing test still closes it.
 */
export function cleanupAfterEach(): Cleanup[] {
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}
