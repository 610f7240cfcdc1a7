/**
 * A strict sliding window, the stricter of the two ways an upstream may count "N requests per W"
 * (a fixed window lets up to 2N through across a boundary): a request at `now` is refused when N
 * requests already arrived in (now - W, now]. Refused requests count too, so a client that keeps
 * knocking stays refused.
 */
export interface SlidingWindow {
  /** Records a request at `now`; the wait in ms before one would be admitted, 0 when this one is. */
  arrive(now: number): number;
}

export function createSlidingWindow(limit: { requests: number; windowMs: number }): SlidingWindow {
  const arrivals: number[] = [];
  return {
    arrive(now) {
      while (arrivals.length > 0 && (arrivals[0] as number) <= now - limit.windowMs) arrivals.shift();
      const wait = arrivals.length >= limit.requests ? (arrivals[arrivals.length - limit.requests] as number) + limit.windowMs - now : 0;
      arrivals.push(now);
      return wait;
    },
  };
}
