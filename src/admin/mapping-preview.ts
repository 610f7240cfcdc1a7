import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { type EventMapper, LookupError, UnmappableEventError } from '../mapping/event-mapper.ts';
import { MappingRulesError, type RulesFlagSettings, rulesFromJson } from '../mapping/load-rules.ts';
import type { MappingOutcome } from '../mapping/mapping-outcome.ts';
import type { MappingRules } from '../mapping/rules-schema.ts';
import { orgRefusal } from '../salesforce/outbound-message-receiver.ts';
import type { Store } from '../store/types.ts';
import { type PreviewInput, previewInput } from './preview-input.ts';
import type { MappingPreviewBody } from './request-schemas.ts';
import type { MappingPreviewAnswer, MappingPreviewResult } from './response-schemas.ts';

/** The map-event mappers by InboundEvent.source, for one set of rules. */
export type MappersFor = (rules: MappingRules) => Readonly<Record<string, EventMapper>>;

export interface MappingPreviewDeps {
  /** The rules in force: MAPPING_FILE, else the built-in ones. */
  rules: MappingRules;
  /** Builds the mappers on the bridge's own CRM directories (cached) and Zoom client, so proposed rules get theirs. */
  mappersFor: MappersFor;
  store: Pick<Store, 'getEvent'>;
  /** SALESFORCE_ORG_IDS: a payload from another org is refused, as the Salesforce route refuses it. */
  orgIds: readonly string[];
  /** The flag defaults a proposed mapping file resolves against, as MAPPING_FILE does. */
  settings: RulesFlagSettings;
  logger: Logger;
}

export type MappingPreview = (body: MappingPreviewBody) => Promise<MappingPreviewAnswer>;

// Lookups run under their own clients' timeouts; nothing cancels a preview from outside.
const NEVER_ABORTED = new AbortController().signal;

/** A proposed mapping file through MAPPING_FILE's own loader: each problem named by its JSON path. */
function proposedRules(mapping: Record<string, unknown>, settings: RulesFlagSettings): MappingRules {
  try {
    return rulesFromJson(mapping, 'mapping', settings);
  } catch (error) {
    if (!(error instanceof MappingRulesError)) throw error;
    const more = error.problems.length > 1 ? ` (and ${error.problems.length - 1} more, in details.problems)` : '';
    throw new AppError('invalid_mapping', `mapping is not a valid mapping file: ${error.problems[0]}${more}`, {
      status: 400,
      details: { problems: error.problems },
    });
  }
}

function resultOf(outcome: MappingOutcome, notificationId: string | undefined): MappingPreviewResult {
  const id = { ...(notificationId === undefined ? {} : { notificationId }), ...(outcome.match === undefined ? {} : { match: outcome.match }) };
  switch (outcome.kind) {
    case 'skipped':
      return { ...id, outcome: 'skipped', reason: outcome.reason, rule: 'none' };
    case 'remap':
      return { ...id, outcome: 'remap', request: outcome.request, flags: outcome.flags, rule: outcome.rule ?? 'unnamed' };
    case 'import':
      return { ...id, outcome: 'import', request: outcome.request, rule: outcome.rule ?? 'unnamed' };
  }
}

/** Maps every record as the map-event job would, keeping only the decision: nothing is enqueued or marked. */
async function mapAll(mappers: Readonly<Record<string, EventMapper>>, input: PreviewInput, logger: Logger): Promise<MappingPreviewResult[]> {
  const mapper = Object.hasOwn(mappers, input.source) ? mappers[input.source] : undefined;
  if (mapper === undefined) throw new AppError('no_mapper', `no mapper for inbound events from source "${input.source}"`, { status: 400 });
  return Promise.all(
    input.records.map(async ({ event, notificationId }) => {
      try {
        return resultOf(await mapper(event, { logger, signal: NEVER_ABORTED }), notificationId);
      } catch (error) {
        // The job would retry a failed lookup later; a preview can only say it failed now.
        if (error instanceof LookupError) throw new AppError('lookup_failed', `a lookup failed: ${error.message}`, { status: 502, cause: error });
        // The job would end dead: no rules can map this record.
        if (error instanceof UnmappableEventError) throw new AppError('unmappable', error.message, { status: 400 });
        throw error;
      }
    }),
  );
}

/**
 * What mapping would make of a payload or a stored event, under the rules in force and, side by
 * side, under a proposed mapping file. Runs the bridge's own mappers (CRM lookups included) and
 * keeps their decisions only: it stores nothing, enqueues nothing and never calls Momentum.
 */
export function createMappingPreview(deps: MappingPreviewDeps): MappingPreview {
  const inForce = deps.mappersFor(deps.rules);
  const refusal = orgRefusal(deps.orgIds);
  return async (body) => {
    // The proposed file first: a mistake in it is answered before any record is read or looked up.
    const proposed = body.mapping === undefined ? undefined : deps.mappersFor(proposedRules(body.mapping, deps.settings));
    const input = await previewInput(body, { store: deps.store, orgRefusal: refusal });
    const results = await mapAll(inForce, input, deps.logger);
    return { source: input.source, results, ...(proposed ? { proposed: { results: await mapAll(proposed, input, deps.logger) } } : {}) };
  };
}
