import { z } from 'zod';

import { int } from './setting-kinds.ts';

/** The process's own settings: what kind of deployment, how much to log, how long a stop may take. */
export const coreSettings = {
  NODE_ENV: z
    .enum(['development', 'production', 'test'])
    .default('development')
    .meta({ description: 'production requires MOMENTUM_API_KEY; otherwise a missing key starts sandbox mode', example: 'production' }),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']).default('info').meta({ description: 'winston log level', example: 'info' }),
  SHUTDOWN_TIMEOUT_MS: int(10_000, 0, 600_000, {
    description: 'On SIGTERM/SIGINT, how long in-flight requests and jobs may take before the process exits',
    example: '10000',
  }),
};
