import { withoutSecrets } from './secret-text.ts';

/**
 * What this process knows of each integration: whether its settings turned it on, and the outcome
 * of its last call or message. Clients report into it as they work; GET /admin/health reads it.
 * In memory, per process: on PostgreSQL with several instances it is this instance's view.
 *
 * An integration is `failing` while its newest outcome is a failure; the next success makes it
 * `on` again, so the answer recovers by itself.
 */

export type IntegrationName =
  'salesforce-outbound' | 'salesforce-lookups' | 'salesforce-pubsub' | 'google' | 'microsoft' | 'zoom' | 'signed-events' | 'momentum';

export type IntegrationState = 'on' | 'off' | 'failing';

export interface IntegrationSetup {
  label: string;
  on: boolean;
  /** The settings that turn it on, as an operator would set them (shown while it is off). */
  enableWith?: string;
  /** What else the settings decided (a part of it that is off, the sandbox). */
  detail?: string;
}

/** One call or message: its outcome as the integration's client saw it. */
export interface Outcome {
  ok: boolean;
  at: number;
  /** Why it failed, short and free of secrets (a status line, an error's message). */
  error?: string;
  /** The upstream's HTTP status, when it answered. */
  status?: number;
  /** The kind of failure (http_4xx, timeout, network, rejected…), when the client classifies them. */
  errorClass?: string;
}

export interface IntegrationHealth extends IntegrationSetup {
  name: IntegrationName;
  state: IntegrationState;
  lastOkAt?: number;
  lastErrorAt?: number;
  lastError?: string;
  /** The newest outcome of either kind. */
  last?: Outcome;
}

/** What a client reports through: only its own integration. */
export interface IntegrationReport {
  ok(details?: Pick<Outcome, 'status'>, at?: number): void;
  failed(error: string, details?: Pick<Outcome, 'status' | 'errorClass'>, at?: number): void;
}

export interface HealthRegistry {
  declare(name: IntegrationName, setup: IntegrationSetup): void;
  report(name: IntegrationName): IntegrationReport;
  /** Every declared integration, in the order declared. */
  list(): IntegrationHealth[];
}

// An error is shown to operators, not stored: a few lines are enough to say what went wrong.
const MAX_ERROR_CHARS = 500;

/** `secrets`: values never kept in an error (secretValues in src/settings.ts): an upstream may quote what it was sent. */
export function createHealthRegistry(options: { secrets?: readonly string[] } = {}): HealthRegistry {
  const secrets = options.secrets ?? [];
  const entries = new Map<IntegrationName, { setup: IntegrationSetup; lastOkAt?: number; lastError?: Outcome; last?: Outcome }>();
  const entry = (name: IntegrationName) => {
    let found = entries.get(name);
    if (found === undefined) entries.set(name, (found = { setup: { label: name, on: true } }));
    return found;
  };
  return {
    declare(name, setup) {
      entry(name).setup = setup;
    },
    report(name) {
      return {
        ok(details = {}, at = Date.now()) {
          const found = entry(name);
          found.lastOkAt = at;
          found.last = { ok: true, at, ...details };
        },
        failed(error, details = {}, at = Date.now()) {
          const outcome: Outcome = { ok: false, at, error: withoutSecrets(error, secrets).slice(0, MAX_ERROR_CHARS), ...details };
          const found = entry(name);
          found.lastError = outcome;
          found.last = outcome;
        },
      };
    },
    list() {
      return [...entries].map(([name, { setup, lastOkAt, lastError, last }]) => ({
        name,
        ...setup,
        state: !setup.on ? 'off' : last?.ok === false ? 'failing' : 'on',
        ...(lastOkAt === undefined ? {} : { lastOkAt }),
        ...(lastError === undefined ? {} : { lastErrorAt: lastError.at, ...(lastError.error === undefined ? {} : { lastError: lastError.error }) }),
        ...(last === undefined ? {} : { last }),
      }));
    },
  };
}

/** A report that goes nowhere: for clients built without a registry (tests, benchmarks). */
export const IGNORED_REPORT: IntegrationReport = { ok: () => {}, failed: () => {} };

/**
 * `target` with each named method's promise reported: a resolved call is a success, a rejected one
 * a failure with the error's message. A call its caller aborted says nothing of the integration.
 */
export function reportingCalls<T extends object>(target: T, methods: ReadonlyArray<keyof T>, report: IntegrationReport): T {
  // The clients are plain objects of closures (no classes, no `this`): a copy with some methods replaced keeps the rest.
  const wrapped = { ...target };
  for (const method of methods) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    const call = async (...args: unknown[]) => {
      try {
        const result: unknown = await (original as (...a: unknown[]) => unknown).apply(target, args);
        report.ok();
        return result;
      } catch (error) {
        if (!(error instanceof Error && error.name === 'AbortError')) report.failed(error instanceof Error ? error.message : String(error));
        throw error;
      }
    };
    wrapped[method] = call as T[keyof T];
  }
  return wrapped;
}
