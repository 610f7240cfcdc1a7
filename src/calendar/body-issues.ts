import type { z } from 'zod';

/** One problem of a signed body, as the 400 lists it: where (dotted path), zod's code and why. */
export interface BodyIssue {
  path: string;
  code: string;
  message: string;
}

// The two bodies of POST /calendar/events name the host differently; a sender that mixes them up
// is told the right name instead of having its host dropped.
const TOP_LEVEL_HINTS: Readonly<Record<string, string>> = {
  organizer: 'unknown field; a recording names its host "host"',
  host: 'unknown field; a meeting names its host "organizer"',
};

/**
 * zod's issues as the calendar route (and the admin preview of a signed body) answer them: an
 * unknown field is its own issue at its own path, so each one is named; `prefix` is prepended to
 * every path (the preview's `payload`).
 */
export function bodyIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly string[] = []): BodyIssue[] {
  return issues.flatMap((issue): BodyIssue[] => {
    const at = [...prefix, ...issue.path.map(String)];
    if (issue.code !== 'unrecognized_keys') return [{ path: at.join('.'), code: issue.code, message: issue.message }];
    return issue.keys.map((key) => ({
      path: [...at, key].join('.'),
      code: 'unrecognized_keys',
      message: (issue.path.length === 0 ? TOP_LEVEL_HINTS[key] : undefined) ?? 'unknown field',
    }));
  });
}
