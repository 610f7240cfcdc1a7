import type { IntegrationReport } from '../core/health-registry.ts';
import type { MomentumCallResult, MomentumClient } from './client.ts';

/** One call's outcome as the health registry keeps it: a success, or why not, with the status and class. */
export function reportCall(report: IntegrationReport, result: MomentumCallResult): void {
  const at = result.startedAt + result.durationMs;
  switch (result.kind) {
    case 'success':
      return report.ok({ status: result.status }, at);
    case 'rejected':
      return report.failed(`rejected: ${result.excerpt || 'accepted: false'}`, { status: result.status, errorClass: 'rejected' }, at);
    case 'http_error':
      return report.failed(
        `HTTP ${result.status}${result.excerpt ? `: ${result.excerpt}` : ''}`,
        { status: result.status, errorClass: `http_${Math.floor(result.status / 100)}xx` },
        at,
      );
    case 'network':
    case 'timeout':
      return report.failed(result.message, { errorClass: result.kind }, at);
    case 'aborted':
      // The bridge stopped the call itself (shutdown, a lost lease): nothing learnt about Momentum.
      return;
  }
}

/** The client with every call's outcome reported (remaps, imports, listings alike: one API key, one Momentum). */
export function reportingMomentumClient(client: MomentumClient, report: IntegrationReport): MomentumClient {
  return {
    ...client,
    async remap(request, flags, options) {
      const result = await client.remap(request, flags, options);
      reportCall(report, result);
      return result;
    },
    async importMeeting(request, options) {
      const result = await client.importMeeting(request, options);
      reportCall(report, result);
      return result;
    },
    async listMeetings(query, options) {
      const listed = await client.listMeetings(query, options);
      reportCall(report, listed.call);
      return listed;
    },
  };
}
