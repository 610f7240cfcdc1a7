import { secretToken, type SettingsOf } from '../core/setting-kinds.ts';

/** Who may scrape GET /metrics. */
export const metricsSettings = {
  METRICS_TOKEN: secretToken({
    description: 'When set, GET /metrics requires Authorization: Bearer <token> (401 without it)',
    example: 'a-long-random-scrape-token',
  }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof metricsSettings> {}
}
