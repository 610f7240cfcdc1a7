import { LRUCache } from 'lru-cache';

export interface BatchLoaderOptions<V> {
  /** Fetches many keys in one call; keys absent from the answer are remembered as absent. */
  load: (keys: string[]) => Promise<Map<string, V>>;
  /** Most keys in one `load` call. */
  maxBatch: number;
  /** How long an answer (or an absence) is remembered. */
  ttlMs: number;
  /** Most keys remembered. */
  maxEntries: number;
}

export interface BatchLoader<V> {
  get(keys: readonly string[]): Promise<Map<string, V>>;
  /** Entries currently cached (for tests and metrics). */
  readonly size: number;
  /** Forgets these keys' answers (and absences): the next get asks again. */
  forget(keys: readonly string[]): void;
}

// Wrapped so a known absence can be cached too (lru-cache values must be non-nullish).
type Entry<V> = { value: V | undefined };

/**
 * Cached, batched key → value lookups: keys asked for in the same turn of the event loop, by any
 * number of callers (the worker runs several mapping jobs at once), go out together in one `load`
 * per `maxBatch` keys, and a key already being loaded is not loaded twice. A failed load rejects
 * its callers and caches nothing, so the next call asks again.
 */
export function createBatchLoader<V>(options: BatchLoaderOptions<V>): BatchLoader<V> {
  const cache = new LRUCache<string, Entry<V>>({ max: options.maxEntries, ttl: options.ttlMs });
  const inFlight = new Map<string, Promise<V | undefined>>();
  let queued = new Map<string, PromiseWithResolvers<V | undefined>>();
  let scheduled = false;

  async function loadChunk(chunk: Array<[string, PromiseWithResolvers<V | undefined>]>): Promise<void> {
    try {
      const found = await options.load(chunk.map(([key]) => key));
      for (const [key, deferred] of chunk) {
        const value = found.get(key);
        cache.set(key, { value });
        deferred.resolve(value);
      }
    } catch (error) {
      for (const [, deferred] of chunk) deferred.reject(error);
    } finally {
      for (const [key] of chunk) inFlight.delete(key);
    }
  }

  function flush(): void {
    scheduled = false;
    const entries = [...queued];
    queued = new Map();
    for (let start = 0; start < entries.length; start += options.maxBatch) {
      void loadChunk(entries.slice(start, start + options.maxBatch));
    }
  }

  function request(key: string): Promise<V | undefined> {
    const pending = inFlight.get(key);
    if (pending !== undefined) return pending;
    const deferred = Promise.withResolvers<V | undefined>();
    queued.set(key, deferred);
    inFlight.set(key, deferred.promise);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    return deferred.promise;
  }

  return {
    get size() {
      return cache.size;
    },
    forget(keys) {
      for (const key of keys) cache.delete(key);
    },
    async get(keys) {
      const result = new Map<string, V>();
      const waits: Array<Promise<void>> = [];
      for (const key of new Set(keys)) {
        const cached = cache.get(key);
        if (cached !== undefined) {
          if (cached.value !== undefined) result.set(key, cached.value);
          continue;
        }
        waits.push(
          request(key).then((value) => {
            if (value !== undefined) result.set(key, value);
          }),
        );
      }
      await Promise.all(waits);
      return result;
    },
  };
}
