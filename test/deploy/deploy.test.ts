import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { configSchema, settingMeta, settingNames } from '../../src/settings.ts';
import { buildApp } from '../support/app-harness.ts';
import { deployYamlFiles, isBridgeImage, type Yaml } from './support/deploy-files.ts';

/* Every YAML file under deploy/ is parsed once below (the Arrange step shared by these inspection
 * tests); the config schema and the real app are the references they are checked against. */
type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
type Probe = { httpGet?: { path?: string; port?: string | number } };
type Container = {
  name: string;
  image?: string;
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Env[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  securityContext?: Record<string, unknown>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds?: number } } };
};
type PodSpec = {
  containers: Container[];
  volumes?: Array<{ name: string; emptyDir?: unknown }>;
  securityContext?: Record<string, unknown>;
  terminationGracePeriodSeconds?: number;
};

const files = deployYamlFiles();
const docs = files.flatMap((file) => file.docs.map((doc) => ({ file: file.file, doc })));
const kind = (name: string) => docs.filter(({ doc }) => doc.kind === name).map(({ doc }) => doc);
const configMapData = (name: string) => (kind('ConfigMap').find((doc) => (doc.metadata as Yaml).name === name)?.data ?? {}) as Record<string, string>;

const deployments = kind('Deployment');
const podSpec = (deployment: Yaml) => (deployment.spec as { template: { spec: PodSpec } }).template.spec;
const podLabels = (deployment: Yaml) => (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
const bridgeContainers = deployments.flatMap((deployment) =>
  podSpec(deployment)
    .containers.filter((container) => isBridgeImage(container.image))
    .map((container) => ({ deployment, container })),
);

/** name → literal value (undefined when it comes from a Secret) of every variable a container gets. */
function containerEnv(container: Container): Map<string, string | undefined> {
  const env = new Map<string, string | undefined>();
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) for (const [name, value] of Object.entries(configMapData(from.configMapRef.name))) env.set(name, String(value));
  }
  for (const entry of container.env ?? []) env.set(entry.name, entry.value);
  return env;
}

const composeServices = docs
  .filter(({ doc }) => typeof doc.services === 'object')
  .flatMap(({ file, doc }) => Object.entries(doc.services as Record<string, Yaml>).map(([name, service]) => ({ file, name, service })));
const bridgeServices = composeServices.filter(
  ({ service }) => isBridgeImage(service.image) || /deploy\/Dockerfile$/.test(String((service.build as Yaml | undefined)?.dockerfile)),
);
function serviceEnv(service: Yaml): Map<string, string> {
  const environment = service.environment ?? {};
  const entries = Array.isArray(environment) ? environment.map((item: string) => item.split(/=(.*)/s).slice(0, 2)) : Object.entries(environment);
  return new Map(entries.map(([name, value]) => [String(name), String(value ?? '')]));
}

const defaultOf = (name: string) => String((configSchema.shape as Record<string, { parse: (value: undefined) => unknown }>)[name]!.parse(undefined));
const secretSettings = [...settingNames().filter((name) => settingMeta(name)?.secret === true), 'DATABASE_URL'];

describe('deploy/ YAML files', () => {
  it('when parsed, then every file is valid YAML and the Kubernetes and Compose files are all there', () => {
    expect(files.flatMap((file) => file.errors.map((error) => `${file.file}: ${error}`))).toEqual([]);
    expect(kind('Deployment')).toHaveLength(1);
    expect(kind('Service')).toHaveLength(1);
    expect(kind('PodDisruptionBudget')).toHaveLength(1);
    expect(kind('ConfigMap')).toHaveLength(1);
    expect(bridgeServices.map(({ file }) => file).sort()).toEqual(['deploy/docker-compose.sqlite.yml', 'deploy/docker-compose.yml']);
  });

  it('when they set environment variables on the bridge, then every name is a setting of the config schema', () => {
    const known = new Set(settingNames());
    const unknown = [
      ...bridgeContainers.flatMap(({ container }) => [...containerEnv(container).keys()].map((name) => `k8s ${container.name}: ${name}`)),
      ...bridgeServices.flatMap(({ file, service }) => [...serviceEnv(service).keys()].map((name) => `${file}: ${name}`)),
    ].filter((entry) => !known.has(entry.split(': ')[1]!));
    expect(bridgeContainers.length).toBeGreaterThan(0);
    expect(unknown).toEqual([]);
  });
});

describe('deploy/k8s', () => {
  it('when the probes are read, then readiness is /readyz and liveness /healthz on the container port, which is PORT', async () => {
    const { app } = buildApp();
    for (const { container } of bridgeContainers) {
      const port = Number(containerEnv(container).get('PORT') ?? defaultOf('PORT'));
      const declared = container.ports ?? [];
      expect(declared.map((item) => item.containerPort)).toEqual([port]);
      const portNames = new Set<string | number>([port, ...declared.flatMap((item) => (item.name ? [item.name] : []))]);
      expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
      for (const probe of [container.readinessProbe, container.livenessProbe]) {
        expect(portNames.has(probe!.httpGet!.port!)).toBe(true);
        expect((await request(app).get(probe!.httpGet!.path!)).status).toBe(200);
      }
    }
  });

  it('when the pod stops, then its grace period exceeds the preStop pause plus SHUTDOWN_TIMEOUT_MS', () => {
    for (const { deployment, container } of bridgeContainers) {
      const deadlineSeconds = Number(containerEnv(container).get('SHUTDOWN_TIMEOUT_MS') ?? defaultOf('SHUTDOWN_TIMEOUT_MS')) / 1000;
      const preStop = container.lifecycle?.preStop;
      const pauseSeconds = Number(preStop?.sleep?.seconds ?? (preStop?.exec?.command?.[0] === 'sleep' ? preStop.exec.command[1] : 0));
      expect(podSpec(deployment).terminationGracePeriodSeconds).toBeGreaterThan(pauseSeconds + deadlineSeconds);
    }
  });

  it('when a setting is secret (or DATABASE_URL, which holds a password), then it comes from a Secret and never from plain config', () => {
    const plain = Object.keys(Object.assign({}, ...kind('ConfigMap').map((doc) => doc.data ?? {})));
    for (const { container } of bridgeContainers) {
      const fromSecret = (container.env ?? []).filter((entry) => entry.valueFrom?.secretKeyRef).map((entry) => entry.name);
      const literal = (container.env ?? []).filter((entry) => entry.value !== undefined).map((entry) => entry.name);
      expect(secretSettings.filter((name) => !fromSecret.includes(name))).toEqual([]);
      expect(secretSettings.filter((name) => literal.includes(name) || plain.includes(name))).toEqual([]);
      expect(container.envFrom?.some((from) => from.secretRef)).toBeFalsy();
    }
  });

  it('when the pod runs, then it is non-root with a read-only root filesystem, writable scratch, and bounded resources', () => {
    for (const { deployment, container } of bridgeContainers) {
      const spec = podSpec(deployment);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(container.resources?.requests).toMatchObject({ cpu: expect.anything(), memory: expect.anything() });
      expect(container.resources?.limits).toMatchObject({ cpu: expect.anything(), memory: expect.anything() });
      const volumes = new Map((spec.volumes ?? []).map((volume) => [volume.name, volume]));
      const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
      expect(tmp && volumes.get(tmp.name)?.emptyDir).toBeDefined();
      expect((container.volumeMounts ?? []).filter((mount) => !volumes.has(mount.name))).toEqual([]);
    }
  });

  it('when the Service and PodDisruptionBudget select pods, then they select the bridge pods and the Service targets the container port', () => {
    const [deployment] = deployments;
    const labels = podLabels(deployment!);
    const container = bridgeContainers[0]!.container;
    const service = kind('Service')[0]!.spec as { selector: Record<string, string>; ports: Array<{ targetPort: string | number }> };
    const pdb = kind('PodDisruptionBudget')[0]!.spec as { selector: { matchLabels: Record<string, string> } };
    expect(labels).toMatchObject(service.selector);
    expect(labels).toMatchObject(pdb.selector.matchLabels);
    const targets = new Set<string | number>((container.ports ?? []).flatMap((item) => [item.containerPort, ...(item.name ? [item.name] : [])]));
    expect(service.ports.every((item) => targets.has(item.targetPort))).toBe(true);
  });
});

describe('deploy/docker-compose*.yml', () => {
  it('when the bridge service publishes its port, then the container side is PORT and the stop grace exceeds the shutdown deadline', () => {
    for (const { service } of bridgeServices) {
      const env = serviceEnv(service);
      const port = env.get('PORT') ?? defaultOf('PORT');
      expect((service.ports as string[]).map((mapping) => String(mapping).split(':').at(-1))).toEqual([port]);
      const deadlineSeconds = Number(env.get('SHUTDOWN_TIMEOUT_MS') ?? defaultOf('SHUTDOWN_TIMEOUT_MS')) / 1000;
      expect(Number(/^(\d+)s$/.exec(String(service.stop_grace_period))?.[1])).toBeGreaterThan(deadlineSeconds);
    }
  });

  it('when PostgreSQL is the store, then the bridge waits for a health-checked postgres:17 with its data in a volume', () => {
    const { service } = bridgeServices.find(({ file }) => file === 'deploy/docker-compose.yml')!;
    const postgres = composeServices.find(({ file, name }) => file === 'deploy/docker-compose.yml' && name === 'postgres')!.service;
    expect(serviceEnv(service).get('DATABASE_URL')).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
    expect(service.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(postgres.image).toBe('postgres:17');
    expect(postgres.healthcheck).toMatchObject({ test: expect.arrayContaining([expect.stringContaining('pg_isready')]) });
    expect(postgres.volumes).toEqual([expect.stringMatching(/^\w+:\/var\/lib\/postgresql\/data$/)]);
  });

  it('when SQLite is the store, then its directory is a named volume', () => {
    const { service } = bridgeServices.find(({ file }) => file === 'deploy/docker-compose.sqlite.yml')!;
    expect(serviceEnv(service).get('DATABASE_URL')).toBe('sqlite:data/bridge.db');
    expect(service.volumes).toEqual([expect.stringMatching(/^[\w-]+:\/app\/data$/)]);
  });
});
