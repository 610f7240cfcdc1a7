import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { parseOutboundMessage } from '../../src/salesforce/soap-parser.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/salesforce/${name}`, import.meta.url), 'utf8');

describe('parseOutboundMessage', () => {
  describe('samples', () => {
    it('when given event-opportunity.xml, then every field comes out as the exact string sent', () => {
      const message = parseOutboundMessage(fixture('event-opportunity.xml'));

      expect(message).toEqual({
        organizationId: '00D8d0000001XyZEAU',
        actionId: '04k8d0000001XyZAAU',
        enterpriseUrl: 'https://example-dev-ed.my.salesforce.com/services/Soap/c/62.0/00D8d0000001XyZ',
        partnerUrl: 'https://example-dev-ed.my.salesforce.com/services/Soap/u/62.0/00D8d0000001XyZ',
        notifications: [
          {
            id: '04l8d0000101XyZAAU',
            sObjectType: 'Event',
            fields: {
              Id: '00U8d0000101XyZEAU',
              AccountId: '0018d0000101XyZAAU',
              EndDateTime: '2026-03-02T16:30:00.000Z',
              OwnerId: '0058d0000101XyZAAU',
              StartDateTime: '2026-03-02T16:00:00.000Z',
              Subject: 'Pricing review with Globex',
              WhatId: '0068d0000101XyZAAU',
              WhoId: '0038d0000101XyZAAU',
            },
          },
        ],
      });
    });

    it('when given opportunity.xml, then numbers, dates and booleans stay text and &amp; is decoded', () => {
      const [notification] = parseOutboundMessage(fixture('opportunity.xml')).notifications;

      expect(notification?.sObjectType).toBe('Opportunity');
      expect(notification?.fields).toEqual({
        Id: '0068d0000120XyZAAU',
        AccountId: '0018d0000120XyZAAU',
        Amount: '45000.0',
        CloseDate: '2026-06-30',
        IsClosed: 'false',
        Name: 'Initech renewal & upsell',
        StageName: 'Negotiation',
      });
    });

    it('when given task-leads-batch.xml, then its three Task notifications come out in order', () => {
      const message = parseOutboundMessage(fixture('task-leads-batch.xml'));

      expect(message.notifications.map((n) => [n.id, n.sObjectType, n.fields.Subject, n.fields.WhoId])).toEqual([
        ['04l8d0000111XyZAAU', 'Task', 'Intro call 1', '00Q8d0000111XyZEAU'],
        ['04l8d0000112XyZAAU', 'Task', 'Intro call 2', '00Q8d0000112XyZEAU'],
        ['04l8d0000113XyZAAU', 'Task', 'Intro call 3', '00Q8d0000113XyZEAU'],
      ]);
    });

    it('when given foreign-org.xml, then it parses (the org check is the route’s job) with its own org id', () => {
      const message = parseOutboundMessage(fixture('foreign-org.xml'));

      expect(message.organizationId).toBe('00D8d0000999XyZEAU');
      expect(message.notifications).toHaveLength(1);
    });
  });
});
