import { type FileHandle, open } from 'node:fs/promises';

/**
 * Makes SQLite's write-ahead log durable off the event loop. node:sqlite is synchronous, so a
 * commit with synchronous=FULL would block every request for the length of an fsync; instead the
 * group commit writes its batch with synchronous=NORMAL and then asks for an fdatasync of the WAL
 * file here, on libuv's thread pool. fsync flushes the file, whichever descriptor asks, so every
 * frame written before the request is on disk when it resolves. Requests arriving while a sync is
 * in flight share the next one: one fsync covers any number of batches.
 */
export interface WalSync {
  /** Resolves once everything written to the WAL before this call is on disk. */
  request(): Promise<void>;
  /**
   * The sync in flight, when no other is queued behind it (settles either way); undefined
   * otherwise. A commit made while it runs needs the next sync anyway, so a group commit may hold
   * its durable calls until this settles and commit them as one larger batch.
   */
  inFlight(): Promise<void> | undefined;
  /** Waits for syncs in flight, then closes the descriptor. */
  close(): Promise<void>;
}

export function createWalSync(walFile: string): WalSync {
  let handle: FileHandle | undefined;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;

  const syncNow = async () => {
    handle ??= await open(walFile, 'r');
    await handle.datasync();
  };

  const request = (): Promise<void> => {
    if (running === undefined) {
      running = syncNow().finally(() => {
        running = undefined;
      });
      return running;
    }
    // The sync in flight may have started before this caller's write: it needs the next one.
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return request();
      });
    return queued;
  };

  return {
    request,
    inFlight: () => (running !== undefined && queued === undefined ? running.catch(() => undefined) : undefined),
    async close() {
      await Promise.allSettled([running, queued]);
      await handle?.close();
      handle = undefined;
    },
  };
}
