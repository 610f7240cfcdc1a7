import type { JobHandler } from './types.ts';

/** Job kinds and their handlers (`remap`, `import`, `map-event`, the calendar sync kinds), one handler per kind. */
export interface JobRegistry {
  register(kind: string, handler: JobHandler): void;
  /** The handler for `kind`; an unknown kind gets one that ends the job dead with the reason. */
  handlerFor(kind: string): JobHandler;
  has(kind: string): boolean;
  kinds(): string[];
}

export function createJobRegistry(initial: Record<string, JobHandler> = {}): JobRegistry {
  const handlers = new Map<string, JobHandler>();
  const register = (kind: string, handler: JobHandler) => {
    // Two handlers for one kind would make which one runs depend on wiring order.
    if (handlers.has(kind)) throw new Error(`a handler for job kind "${kind}" is already registered`);
    handlers.set(kind, handler);
  };
  for (const [kind, handler] of Object.entries(initial)) register(kind, handler);

  return {
    register,
    handlerFor: (kind) => handlers.get(kind) ?? unknownKind(kind, [...handlers.keys()]),
    has: (kind) => handlers.has(kind),
    kinds: () => [...handlers.keys()],
  };
}

/** Retrying cannot help a kind no handler knows (a typo, or a job from a newer version): dead at once. */
function unknownKind(kind: string, known: string[]): JobHandler {
  return async (_job, context) => ({
    kind: 'final',
    state: 'dead',
    reason: `no handler registered for job kind "${kind}" (known: ${known.join(', ') || 'none'})`,
    attempt: { startedAt: context.now(), durationMs: 0, errorClass: 'unknown_kind' },
  });
}
