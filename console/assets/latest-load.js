/**
 * A list's load where only the newest counts: a newer load (the operator typed on, changed a
 * filter, paged) aborts the one in flight, so the server is not kept busy with a search nobody
 * waits for and a late answer never overwrites a newer one; a quiet live refresh (live.js) gives
 * way to any load in flight.
 * @param {(current: AbortController, live: boolean) => Promise<void>} render
 * @returns {(options?: { live?: boolean }) => Promise<void>}
 */
export function latestLoad(render) {
  /** @type {AbortController | undefined} */
  let inFlight;
  return async ({ live = false } = {}) => {
    if (live && inFlight !== undefined) return;
    inFlight?.abort();
    const current = new AbortController();
    inFlight = current;
    try {
      await render(current, live);
    } finally {
      if (inFlight === current) inFlight = undefined;
    }
  };
}
