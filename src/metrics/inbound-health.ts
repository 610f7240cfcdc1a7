import type { HealthRegistry, IntegrationName } from '../core/health-registry.ts';
import type { InboundMetrics } from './bridge-metrics.ts';

/** The inbound routes' sources (their metrics label) and the integration each one is. */
const INTEGRATION_OF: Readonly<Record<string, IntegrationName>> = {
  salesforce: 'salesforce-outbound',
  calendar: 'signed-events',
  zoom: 'zoom',
};

/**
 * Refusals that are the bridge's failure, not the sender's mistake: the message could not be
 * stored. A forged signature or an org not allowed says nothing of the integration's health, and
 * anyone can send one, so only these make it `failing`.
 */
const NOT_STORED = new Set(['store_unavailable', 'store_cannot_write', 'store_closed', 'internal_error']);

/**
 * The inbound routes' metrics, also reported to the health registry: an acknowledged message is a
 * success of its integration, one the bridge could not store a failure.
 */
export function reportInbound<M extends InboundMetrics>(metrics: M, registry: HealthRegistry): M {
  return {
    ...metrics,
    inboundMessage(source, outcome, reason) {
      metrics.inboundMessage(source, outcome, reason);
      const name = INTEGRATION_OF[source];
      if (name === undefined) return;
      if (outcome === 'acked') registry.report(name).ok();
      else if (reason !== undefined && NOT_STORED.has(reason)) registry.report(name).failed(`a message could not be stored (${reason})`);
    },
  };
}
