import { createApp } from '../../src/app.ts';
import { type Config, parseConfig, secretValues } from '../../src/core/config.ts';
import type { ReadinessCheck } from '../../src/http/readiness-checks.ts';
import { captureLogs, type LogCapture } from './log-capture.ts';

export interface BuiltApp {
  app: ReturnType<typeof createApp>;
  config: Config;
  /** Everything the app logged, through the real logger (formats and redaction included). */
  logs: LogCapture;
}

/**
 * The real app from createApp with its defaults, a captured logger and the readiness checks
 * given. `env` is parsed by the real config schema; the logger scrubs that config's secrets,
 * as server.ts does.
 */
export function buildApp(options: { env?: Record<string, string>; readiness?: ReadinessCheck[] } = {}): BuiltApp {
  const config = parseConfig(options.env ?? {});
  const logs = captureLogs({ secrets: secretValues(config) });
  const app = createApp({ config, logger: logs.logger, readiness: options.readiness ?? [] });
  return { app, config, logs };
}
