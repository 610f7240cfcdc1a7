import { z } from 'zod';

import { bool, optionalText, type SettingsOf } from '../core/setting-kinds.ts';

/** The mapping rules, and the flags a remap or an import carries unless a rule says otherwise. */
export const mappingSettings = {
  MAPPING_FILE: optionalText({ description: 'JSON mapping rules; built-in defaults when unset', example: 'deploy/mapping.example.json' }),
  REMAP_TRIGGER_SUMMARY: bool({ description: 'Default triggerSummary flag for remaps', example: 'false' }),
  REMAP_TRIGGER_AI_SIGNALS: bool({ description: 'Default triggerAiSignals flag for remaps', example: 'false' }),
  IMPORT_PROCESS_MEETINGS: z
    .enum(['true', 'false', '1', '0'], { error: 'expected true or false' })
    .default('true')
    .transform((value) => value === 'true' || value === '1')
    .meta({ description: 'processImportedMeeting on automatic imports (recordings); the mapping file may override it per source', example: 'true' }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof mappingSettings> {}
}
