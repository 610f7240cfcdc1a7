import type { Attempt, ClaimOptions, FinishJob, Job, NewJob, Store } from '../../../src/store/types.ts';

/**
 * A small in-memory double of the Store's job and bucket methods, for worker unit tests that
 * pin the clock. It follows the contract in src/store/types.ts; the real engines are tested by
 * the store's conformance suite and by the worker's integration tests.
 */
export function createMemoryStore(clock: () => number = Date.now): Store & { jobs: Map<number, Job>; attempts: Attempt[] } {
  const jobs = new Map<number, Job>();
  const attempts: Attempt[] = [];
  const buckets = new Map<string, { tokens: number; at: number; blockedUntil: number | null }>();
  const listeners = new Set<() => void>();
  let nextId = 1;

  const leaseLive = (job: Job, now: number) => job.state === 'running' && (job.leaseUntil ?? 0) > now;
  const enqueueOne = (input: NewJob, now: number): Job => {
    const job: Job = {
      id: nextId++, kind: input.kind, payload: input.payload, coalesceKey: input.coalesceKey ?? null, state: 'pending', attempts: 0,
      runAt: input.runAt ?? now, leaseOwner: null, leaseUntil: null, createdAt: now, updatedAt: now, eventId: input.eventId ?? null,
      supersededBy: null, replayOf: input.replayOf ?? null, lastError: null, result: null,
    };
    for (const older of jobs.values()) {
      if (job.coalesceKey !== null && older.coalesceKey === job.coalesceKey && older.state === 'pending') {
        Object.assign(older, { state: 'superseded', supersededBy: job.id, updatedAt: now });
      }
    }
    jobs.set(job.id, job);
    return job;
  };
  const notify = () => queueMicrotask(() => listeners.forEach((listener) => listener()));
  const refill = (key: string, capacity: number, windowMs: number, now: number) => {
    const bucket = buckets.get(key) ?? { tokens: capacity, at: now, blockedUntil: null };
    bucket.tokens = Math.min(capacity, bucket.tokens + (Math.max(0, now - bucket.at) * capacity) / windowMs);
    bucket.at = Math.max(bucket.at, now);
    buckets.set(key, bucket);
    return bucket;
  };
  const unsupported = (): never => {
    throw new Error('not part of the memory double');
  };

  return {
    engine: 'sqlite', jobs, attempts,
    migrate: async () => {}, ping: async () => {}, close: async () => {},
    ingest: unsupported, getEvent: unsupported, lastSucceeded: unsupported,
    stats: unsupported, listJobs: unsupported, countJobs: unsupported, listEvents: unsupported, getMessage: unsupported, cancelJob: unsupported,
    async enqueue(list) {
      const created = list.map((input) => enqueueOne(input, clock()));
      notify();
      return created.map((job) => ({ ...job }));
    },
    async claim({ owner, limit, leaseMs, now = clock() }: ClaimOptions) {
      const busyKeys = new Set([...jobs.values()].filter((job) => leaseLive(job, now) && job.coalesceKey).map((job) => job.coalesceKey));
      const claimed: Job[] = [];
      for (const job of [...jobs.values()].sort((a, b) => a.id - b.id)) {
        if (claimed.length >= limit) break;
        const due = (job.state === 'pending' && job.runAt <= now) || (job.state === 'running' && !leaseLive(job, now));
        if (!due || (job.coalesceKey !== null && busyKeys.has(job.coalesceKey))) continue;
        if (job.coalesceKey !== null) busyKeys.add(job.coalesceKey);
        Object.assign(job, { state: 'running', leaseOwner: owner, leaseUntil: now + leaseMs, updatedAt: now });
        claimed.push({ ...job });
      }
      return claimed;
    },
    async extendLeases(ids, owner, leaseMs) {
      for (const id of ids) {
        const job = jobs.get(id);
        if (job?.state === 'running' && job.leaseOwner === owner) job.leaseUntil = clock() + leaseMs;
      }
    },
    async finish({ jobId, leaseOwner, outcome, attempt, enqueue }: FinishJob) {
      const job = jobs.get(jobId);
      if (!job || job.state !== 'running' || job.leaseOwner !== leaseOwner) return false;
      const now = clock();
      Object.assign(job, { leaseOwner: null, leaseUntil: null, updatedAt: now });
      // As in the engines: an attempt is counted when one is recorded.
      if (attempt) {
        job.attempts += 1;
        attempts.push({ ...attempt, id: attempts.length + 1, jobId });
      }
      if (outcome.state === 'retry') Object.assign(job, { state: 'pending', runAt: outcome.runAt, lastError: outcome.error });
      else if (outcome.state === 'deferred') Object.assign(job, { state: 'pending', runAt: outcome.runAt });
      else if (outcome.state === 'succeeded') Object.assign(job, { state: 'succeeded', result: outcome.result ?? null });
      else Object.assign(job, { state: outcome.state, lastError: outcome.reason, result: outcome.result ?? null });
      for (const input of enqueue ?? []) enqueueOne(input, now);
      notify();
      return true;
    },
    async releaseLeases(owner) {
      let count = 0;
      for (const job of jobs.values()) {
        if (job.state === 'running' && job.leaseOwner === owner) {
          Object.assign(job, { state: 'pending', leaseOwner: null, leaseUntil: null });
          count += 1;
        }
      }
      if (count > 0) notify();
      return count;
    },
    async nextDueAt() {
      const times = [...jobs.values()].flatMap((job) => (job.state === 'pending' ? [job.runAt] : job.state === 'running' ? [job.leaseUntil ?? 0] : []));
      return times.length === 0 ? undefined : Math.min(...times);
    },
    getJob: async (id) => (jobs.has(id) ? { ...jobs.get(id)! } : undefined),
    getAttempts: async (jobId) => attempts.filter((attempt) => attempt.jobId === jobId),
    async takeToken(key, capacity, windowMs, now = clock()) {
      const bucket = refill(key, capacity, windowMs, now);
      if (bucket.blockedUntil !== null && bucket.blockedUntil > now) return bucket.blockedUntil - now;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.ceil(((1 - bucket.tokens) * windowMs) / capacity);
    },
    async blockBucket(key, untilMs) {
      buckets.set(key, { tokens: 0, at: untilMs, blockedUntil: untilMs });
    },
    async bucketState(key, capacity, windowMs, now = clock()) {
      const bucket = refill(key, capacity, windowMs, now);
      return { tokens: Math.floor(bucket.tokens), blockedUntil: bucket.blockedUntil !== null && bucket.blockedUntil > now ? bucket.blockedUntil : null };
    },
    onJobsAvailable(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
