import type { ChangeInput } from '../../test/fakes/fake-pubsub.ts';
import { subjectOf } from '../lib/outbound-messages.ts';

/**
 * The change events the benchmark publishes: the CREATE of an Event like the Outbound Messages of
 * bench/lib/outbound-messages.ts carry (same fields, same Opportunity, Subject `subjectOf(id)`), so
 * both paths map the same record into the same remap; and an Opportunity's CREATE for the replay's
 * mix. A CREATE carries every field: the bridge stores it without a REST read.
 */

const START = Date.parse('2026-03-02T16:00:00.000Z');
const END = Date.parse('2026-03-02T16:30:00.000Z');
const DEAL = '0068d00000AbCdE';
const OWNER = '0058d000001AbCd';

/** `prefix` + a base-36 counter + `AAA`: 18 characters, distinct per sequence (as outbound-messages.ts builds ids). */
export const idFrom = (prefix: string, sequence: number): string => `${prefix}${sequence.toString(36).padStart(12, '0')}AAA`;

export function eventCreate(recordId: string, sequence: number): ChangeInput {
  return {
    header: { entityName: 'Event', recordIds: [recordId], changeType: 'CREATE', transactionKey: `bench-event-${sequence}` },
    fields: { WhatId: DEAL, OwnerId: OWNER, Subject: subjectOf(recordId), StartDateTime: BigInt(START), EndDateTime: BigInt(END) },
  };
}

export function opportunityCreate(recordId: string, sequence: number): ChangeInput {
  return {
    header: { entityName: 'Opportunity', recordIds: [recordId], changeType: 'CREATE', transactionKey: `bench-deal-${sequence}` },
    fields: { Name: `Bench deal ${sequence}`, StageName: 'Prospecting', CloseDate: BigInt(END), IsClosed: false, OwnerId: OWNER },
  };
}
