/**
 * The failures a test scripts on a fake, per call target: after `after` more good calls (default
 * 0), the next `times` calls (default 1) of the target answer `status` with the given headers and
 * body (each fake fills in its own defaults when they are left out).
 */

export interface FailureOptions {
  times?: number;
  after?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ScriptedFailure<Target extends string> {
  target: Target;
  status: number;
  headers: Record<string, string> | undefined;
  body: unknown;
  skip: number;
}

export interface ScriptedFailures<Target extends string> {
  fail(target: Target, status: number, options?: FailureOptions): void;
  /** The failure this call of `target` answers with, if one is due (and it is used up). */
  take(target: Target): ScriptedFailure<Target> | undefined;
}

export function scriptedFailures<Target extends string>(): ScriptedFailures<Target> {
  const failures: Array<ScriptedFailure<Target>> = [];
  return {
    fail(target, status, options = {}) {
      for (let i = 0; i < (options.times ?? 1); i += 1) {
        failures.push({ target, status, headers: options.headers, body: options.body, skip: i === 0 ? (options.after ?? 0) : 0 });
      }
    },
    take(target) {
      const index = failures.findIndex((failure) => failure.target === target);
      const failure = failures[index];
      if (failure === undefined) return undefined;
      if (failure.skip > 0) {
        // Calls still to let through before this failure; every later failure of the target waits behind it.
        failure.skip -= 1;
        return undefined;
      }
      return failures.splice(index, 1)[0];
    },
  };
}
