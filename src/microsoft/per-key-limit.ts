/**
 * At most `limit` tasks at once per key; the rest wait their turn in order. Outlook allows four
 * concurrent requests per mailbox (docs/protocols.md §7), so every Graph call for a mailbox goes
 * through one of these.
 */
export function perKeyLimit(limit: number) {
  const running = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();

  const release = (key: string) => {
    const next = waiting.get(key)?.shift();
    if (next) return next();
    const count = (running.get(key) ?? 1) - 1;
    if (count === 0) running.delete(key);
    else running.set(key, count);
    if (waiting.get(key)?.length === 0) waiting.delete(key);
  };

  return async function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const count = running.get(key) ?? 0;
    if (count < limit) running.set(key, count + 1);
    else
      await new Promise<void>((resolve) => {
        const queue = waiting.get(key) ?? [];
        queue.push(resolve);
        waiting.set(key, queue);
      });
    try {
      return await task();
    } finally {
      release(key);
    }
  };
}
