import type { HealthRegistry, IntegrationHealth, Outcome } from '../core/health-registry.ts';
import type { Logger } from '../core/logger.ts';
import { type ReadinessCheck, runReadiness } from '../http/readiness-checks.ts';
import type { InstanceBeat } from '../store/instance-store.ts';
import type { AdminReads, Instances, StoreLifecycle } from '../store/types.ts';
import type { HealthAnswer } from './health-schemas.ts';
import { INSTANCE_SEEN_WITHIN_MS } from './instance-heartbeat.ts';
import { DELIVERY_KINDS } from './request-schemas.ts';
import { iso } from './views.ts';

/** What the health answer is made of: the running bridge's parts, none of them re-read from settings. */
export interface HealthSources {
  readiness: readonly ReadinessCheck[];
  registry: HealthRegistry;
  /** This process, as its heartbeat writes it. */
  instance: InstanceBeat;
  /** Whether Momentum is the sandbox receiver, and the log its calls are counted in. */
  momentum: { sandbox: boolean; budget: string };
  logger: Logger;
}

type HealthStore = Pick<StoreLifecycle, 'engine'> & Pick<AdminReads, 'listJobs'> & Instances;

/**
 * "Is it healthy?" in one answer: readiness (the checks of /readyz), this process, the instances
 * alive on the database, and every integration as this instance has seen it work (in memory, per
 * process). Momentum's state also reads the store: a delivery that ended dead on any instance
 * since this one started makes it failing while this instance has made no call of its own since.
 */
export async function healthReport(store: HealthStore, sources: HealthSources, now = Date.now()): Promise<HealthAnswer> {
  const { instance } = sources;
  const [readiness, seen, deadSinceStart, dead] = await Promise.all([
    runReadiness(sources.readiness, sources.logger),
    // SQLite serves one process: the instance is this one, and it writes no heartbeat.
    store.engine === 'postgres' ? store.instances.seenSince(now - INSTANCE_SEEN_WITHIN_MS) : Promise.resolve([{ ...instance, seenAt: now }]),
    // Ended dead since this instance started, by when it died (not when it was made): a delivery
    // retried for hours before dying counts from its death.
    store.listJobs({ kinds: DELIVERY_KINDS, states: ['dead'], updatedSince: instance.startedAt, limit: 1 }),
    store.listJobs({ kinds: DELIVERY_KINDS, states: ['dead'], limit: 1 }),
  ]);
  const lastDead = deadSinceStart[0] ?? dead[0];
  const integrations = sources.registry
    .list()
    .map((entry) =>
      entry.name === 'momentum' && entry.last === undefined && lastDead !== undefined && lastDead.updatedAt >= instance.startedAt
        ? { ...entry, state: 'failing' as const, lastErrorAt: lastDead.updatedAt, lastError: lastDead.lastError ?? 'a delivery ended dead' }
        : entry,
    );
  const last = sources.registry.list().find((entry) => entry.name === 'momentum')?.last;
  return {
    ready: readiness.ready,
    checks: readiness.checks,
    version: instance.version,
    startedAt: iso(instance.startedAt),
    uptimeSeconds: Math.max(0, Math.round((now - instance.startedAt) / 1000)),
    engine: store.engine,
    instance: instance.id,
    instances: seen.map((entry) => ({ ...entry, startedAt: iso(entry.startedAt), seenAt: iso(entry.seenAt), self: entry.id === instance.id })),
    instancesSeenWithinSeconds: INSTANCE_SEEN_WITHIN_MS / 1000,
    integrations: integrations.map(integrationView),
    momentum: {
      mode: sources.momentum.sandbox ? 'sandbox' : 'real',
      budget: sources.momentum.budget,
      ...(last === undefined ? {} : { lastAnswer: answerView(last) }),
      ...(lastDead === undefined ? {} : { lastDead: { deliveryId: lastDead.id, at: iso(lastDead.updatedAt), error: lastDead.lastError } }),
    },
  };
}

function integrationView(entry: IntegrationHealth): HealthAnswer['integrations'][number] {
  return {
    name: entry.name,
    label: entry.label,
    state: entry.state,
    // The settings that turn it on matter while it is off; once on, they are noise.
    ...(entry.state === 'off' && entry.enableWith !== undefined ? { enableWith: entry.enableWith } : {}),
    ...(entry.detail === undefined ? {} : { detail: entry.detail }),
    ...(entry.lastOkAt === undefined ? {} : { lastOkAt: iso(entry.lastOkAt) }),
    ...(entry.lastErrorAt === undefined ? {} : { lastErrorAt: iso(entry.lastErrorAt) }),
    ...(entry.lastError === undefined ? {} : { lastError: entry.lastError }),
  };
}

function answerView(outcome: Outcome): NonNullable<HealthAnswer['momentum']['lastAnswer']> {
  return {
    at: iso(outcome.at),
    ok: outcome.ok,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
    ...(outcome.errorClass === undefined ? {} : { errorClass: outcome.errorClass }),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
}
