import { byId } from './dom.js';

export const LIVE_EVERY_MS = 5000;

/**
 * Keeps the active view's list live: every LIVE_EVERY_MS it asks the view for a quiet refresh
 * (`live()`, which re-renders only when the API's answer changed), unless the operator is reading:
 *
 *   live ──(a detail opens, the tab is hidden, text is selected, the list is scrolled into,
 *           the operator types in the view)──▶ paused ──(all of that over)──▶ live (refreshed at once)
 *
 * A paused list is never touched, so nothing moves under the operator's eyes: no row jumps, the
 * scroll position and an open detail stay. The indicator says which state holds and why;
 * `data-ticks` counts the intervals passed, so a test can wait for one without guessing times.
 */
export function createLive({ activeView }) {
  const indicator = byId('live-indicator');
  let ticks = 0;
  let timer;
  let wasPaused = false;
  let running = false;

  function pausedBecause() {
    if (document.hidden) return 'tab hidden';
    const view = activeView();
    if (view?.live === undefined) return null;
    const reading = view.reading?.();
    if (reading) return reading;
    const selection = document.getSelection();
    if (selection && !selection.isCollapsed && selection.toString().trim() !== '') return 'text selected';
    const section = document.getElementById(`${view.name}-view`);
    const focused = document.activeElement;
    // Typing a search, a filter or a reason: the list must not move under the field, and the
    // search's own answer is the one to show (a filter's select answers at once, and does not pause).
    if (section?.contains(focused) && focused?.matches('textarea, input:not([type="checkbox"], [type="radio"])')) return 'typing';
    const list = section?.querySelector('.list, [data-live-list]');
    if (list && list.getBoundingClientRect().top < 0) return 'scrolled';
    return null;
  }

  function show(reason) {
    const view = activeView();
    const state = view?.live === undefined ? 'idle' : reason ? 'paused' : 'live';
    indicator.dataset.state = state;
    // A view without a list (a form, a meeting's page) has nothing to keep live.
    indicator.hidden = state === 'idle';
    indicator.dataset.reason = reason ?? '';
    indicator.textContent = state === 'live' ? 'Live' : state === 'paused' ? `Paused: ${reason}` : 'Not live';
    indicator.title =
      state === 'live'
        ? `This list refreshes every ${LIVE_EVERY_MS / 1000} s`
        : state === 'paused'
          ? 'Refreshing resumes when you close the page you read, scroll back up or clear the selection'
          : 'This view has no list to refresh';
  }

  // A slow answer (a busy store) spaces the next ones out: the console waits five times as long as
  // the last refresh took before it asks again, so it never keeps a struggling bridge busier.
  let quietUntil = 0;
  async function refresh() {
    const view = activeView();
    if (running || view?.live === undefined || performance.now() < quietUntil) return;
    running = true;
    const started = performance.now();
    try {
      await view.live();
    } finally {
      running = false;
      quietUntil = performance.now() + (performance.now() - started) * 5;
    }
  }

  // Checked on every change that may pause or resume, so the indicator is right at once and a
  // resumed list is brought up to date without waiting for the next interval.
  let scheduled = false;
  function recheck() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      const reason = pausedBecause();
      show(reason);
      if (wasPaused && reason === null) void refresh();
      wasPaused = reason !== null;
    });
  }
  for (const name of ['visibilitychange', 'selectionchange', 'focusin', 'focusout']) document.addEventListener(name, recheck, { passive: true });
  window.addEventListener('scroll', recheck, { passive: true });

  function tick() {
    ticks += 1;
    indicator.dataset.ticks = String(ticks);
    const reason = pausedBecause();
    show(reason);
    wasPaused = reason !== null;
    if (reason === null) void refresh();
  }

  return {
    start() {
      clearInterval(timer);
      timer = setInterval(tick, LIVE_EVERY_MS);
      recheck();
    },
    stop: () => clearInterval(timer),
    /** After the view changed or a detail opened or closed. */
    recheck,
  };
}

/**
 * One list's reads, remembering the last answer's tag: a live read of the same query asks "changed
 * since?" and gets `changed: false` when nothing did, so the list is left as it is. Other reads
 * (the operator filtered, paged, pressed Refresh) always answer in full.
 */
export function createTaggedReads(api) {
  let last = { key: '', etag: null };
  /** @param {string} path @param {Record<string, unknown>} query @param {{ live?: boolean, signal?: AbortSignal }} [options] */
  return async (path, query, { live = false, signal = undefined } = {}) => {
    const key = `${path}?${JSON.stringify(query)}`;
    const answer = await api.getIfChanged(path, query, live && key === last.key ? last.etag : null, { signal });
    last = { key, etag: answer.etag };
    return { changed: !answer.notModified, payload: answer.payload };
  };
}
