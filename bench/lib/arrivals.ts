import { setTimeout as sleep } from 'node:timers/promises';

/** Remap arrivals at a fake Momentum by title, and a wait for one (the latency benchmarks' clock). */
export function arrivals() {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  let duplicates = 0;
  return {
    record(title: string, receivedAt: number) {
      if (arrived.has(title)) return void (duplicates += 1);
      arrived.set(title, receivedAt);
      waiting.get(title)?.();
    },
    /** The arrival time of the remap titled `title`, or undefined after the deadline. */
    async of(title: string, timeoutMs: number): Promise<number | undefined> {
      if (!arrived.has(title)) {
        await Promise.race([new Promise<void>((resolve) => waiting.set(title, resolve)), sleep(timeoutMs)]);
        waiting.delete(title);
      }
      return arrived.get(title);
    },
    duplicates: () => duplicates,
  };
}

export type Arrivals = ReturnType<typeof arrivals>;

/** The title of a remap body (meetingDetails.title), '' when it has none. */
export const titleOf = (body: unknown): string => (body as { meetingDetails?: { title?: string } } | undefined)?.meetingDetails?.title ?? '';
