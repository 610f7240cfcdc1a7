import type { IntegrationReport } from '../../core/health-registry.ts';

/**
 * The `salesforce-pubsub` health entry over every channel: failing while any channel's newest
 * outcome is a failure, so a keepalive on one channel cannot hide another refused for good (a
 * missing permission, an unknown topic). Each channel reports through its own view.
 */
export function channelHealth(report: IntegrationReport): (topic: string) => IntegrationReport {
  const failing = new Map<string, string>();
  return (topic) => ({
    ok(details, at) {
      failing.delete(topic);
      const [other] = failing.values();
      if (other === undefined) report.ok(details, at);
      else report.failed(other, undefined, at);
    },
    failed(error, details, at) {
      failing.set(topic, error);
      report.failed(error, details, at);
    },
  });
}
