/** What stands in for a secret value wherever text leaves the process or is stored. */
export const REDACTED = '[redacted]';

/**
 * `text` with every known secret value replaced: an upstream's error may quote what it was sent
 * (a token endpoint echoing the client secret), and such text reaches logs, stored job errors and
 * the health answer.
 */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) if (secret !== '' && clean.includes(secret)) clean = clean.split(secret).join(REDACTED);
  return clean;
}
