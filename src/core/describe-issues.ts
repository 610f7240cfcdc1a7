import type { z } from 'zod';

/** One line per zod issue, `path: message`, for dead-letter reasons and replies. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`).join('; ');
}
