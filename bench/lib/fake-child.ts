import { startBenchFake } from './bench-fake.ts';
import { serveChild } from './child.ts';

/** Child process entry: the bench fake Momentum on its own core (see child.ts). */
const fake = await startBenchFake();
serveChild(
  fake.url,
  async () => {
    await fake.close();
    return { count: fake.count() };
  },
  {
    count: async () => ({ count: fake.count() }),
    reset: async () => {
      fake.reset();
      return {};
    },
  },
);
