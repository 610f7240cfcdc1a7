import { describe, expect, it } from 'vitest';

import { planOf, RECIPE_MIX } from '../../bench/year/plan.ts';
import { sampleOf } from '../../bench/year/sample.ts';
import { deliveryIdsOf, identityOf, receivedAtOf, YEAR_MS } from '../../bench/year/vary.ts';
import { normalizeSalesforceId } from '../../src/mapping/salesforce-ids.ts';

const EVENTS = 20_000;
const plans = Array.from({ length: EVENTS }, (_, n) => planOf(n, EVENTS));

describe('bench:year plan', () => {
  it('when a delivery is superseded, then the next event is an update of the same meeting and is itself never superseded', () => {
    const pairs = plans.flatMap((plan, n) => (plan.variant === 'supersededFirst' ? [n] : []));

    expect(pairs.length).toBeGreaterThan(100);
    for (const n of pairs) {
      expect(plans[n + 1]).toEqual({ recipe: plans[n]?.recipe, variant: 'update', identity: n });
    }
    expect(plans.filter((plan) => plan.variant === 'update')).toHaveLength(pairs.length);
  });

  it('when the year is planned, then only the newest deliveries are pending and each source has about its share', () => {
    const pending = plans.flatMap((plan, n) => (plan.variant === 'pending' ? [n] : []));

    expect(pending.length).toBeGreaterThan(0);
    expect(Math.min(...pending)).toBeGreaterThanOrEqual(EVENTS - 10);
    for (const [recipe, perThousand] of RECIPE_MIX) {
      const share = plans.filter((plan) => plan.recipe === recipe).length / EVENTS;
      expect(Math.abs(share - perThousand / 1000)).toBeLessThan(0.02);
    }
  });
});

describe('bench:year values', () => {
  it('when identities are made, then every Salesforce id is a valid 18-character id and titles name their company', () => {
    for (let n = 0; n < 2_000; n++) {
      const who = identityOf(n);
      for (const id of [who.event, who.opportunity, who.account, who.contact, who.owner]) {
        expect(id.id15).toHaveLength(15);
        expect(normalizeSalesforceId(id.id15)).toBe(id.id18);
      }
      expect(who.title).toContain(who.company);
      expect(who.buyerEmail.endsWith(`@${who.domain}`)).toBe(true);
    }
  });

  it('when events are made, then no notification or webhook id repeats and arrivals climb through the year before its end', () => {
    const end = Date.parse('2026-11-27T00:00:00Z');
    const ids = Array.from({ length: EVENTS }, (_, n) => deliveryIdsOf(n));
    const times = Array.from({ length: EVENTS }, (_, n) => receivedAtOf(n, EVENTS, end));

    expect(new Set(ids.map((id) => id.notification.id18)).size).toBe(EVENTS);
    expect(new Set(ids.map((id) => id.webhookId)).size).toBe(EVENTS);
    expect(times.every((time, n) => n === 0 || time >= (times[n - 1] as number))).toBe(true);
    expect(times[0]).toBeGreaterThanOrEqual(end - YEAR_MS);
    expect(times.at(-1)).toBeLessThan(end);
  });

  it('when the sample is chosen, then it is a matched calendar meeting whose title holds the searched word', () => {
    const sample = sampleOf(EVENTS);

    expect(plans[sample.n]).toEqual({ recipe: 'calendarMatched', variant: 'normal', identity: sample.n });
    expect(sample.title).toContain(sample.titleWord);
    expect(sample.titleWordMeetings).toBeGreaterThan(0);
  });
});
