import express from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { ConfigError, parseConfig } from '../../src/settings.ts';
import { notifications, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { expectRefused, type Harness, startHarness } from '../salesforce/support/salesforce-route-harness.ts';
import { storedCounts } from '../support/stored-rows.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const message = () => outboundMessage({ notifications: notifications(1) });

/** req.ip as express computes it under the parsed TRUST_PROXY value. */
function ipEcho(trustProxy: string) {
  const app = express();
  app.set('trust proxy', parseConfig({ TRUST_PROXY: trustProxy }).TRUST_PROXY);
  app.get('/ip', (req, res) => void res.json({ ip: req.ip }));
  return app;
}

describe('TRUST_PROXY', () => {
  it.each([
    ['false', false],
    ['', false],
    ['true', true],
    ['2', 2],
    ['loopback, 10.0.0.0/8 ,2001:db8::/32', ['loopback', '10.0.0.0/8', '2001:db8::/32']],
  ])('when set to %j, then express gets %j', (text, expected) => {
    expect(parseConfig({ TRUST_PROXY: text }).TRUST_PROXY).toEqual(expected);
  });

  it.each(['10.0.0.0/33', 'proxy.internal', 'loopback,10.0.0.0/8,not-an-ip', '-1'])('when set to %j, then the start is refused naming the setting', (text) => {
    const parse = () => parseConfig({ TRUST_PROXY: text });

    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(/TRUST_PROXY: expected true, false, a number of hops, or addresses\/CIDRs/);
  });

  it.each([
    ['false', '203.0.113.9', /^(::ffff:)?127\.0\.0\.1$/],
    ['loopback', '203.0.113.9', /^203\.0\.113\.9$/],
    ['1', '198.51.100.1, 203.0.113.9', /^203\.0\.113\.9$/],
    ['2', '198.51.100.1, 203.0.113.9', /^198\.51\.100\.1$/],
  ])('when TRUST_PROXY=%s and X-Forwarded-For is %j, then req.ip is right', async (trustProxy, forwardedFor, expected) => {
    const response = await request(ipEcho(trustProxy)).get('/ip').set('X-Forwarded-For', forwardedFor);

    expect(response.body.ip).toMatch(expected);
  });
});

describe('SALESFORCE_ALLOWED_CIDRS on POST /salesforce/outbound-message', () => {
  it('when the proxy is not trusted, then a forged X-Forwarded-For inside the range does not get in: 403 fault, nothing stored', async () => {
    harness = await startHarness({ env: { SALESFORCE_ALLOWED_CIDRS: '203.0.113.0/24' } });

    const response = await harness.post(message()).set('X-Forwarded-For', '203.0.113.9');

    await expectRefused(harness, response, {
      status: 403,
      faultcode: 'soapenv:Client',
      faultstring: /^client address (::ffff:)?127\.0\.0\.1 is not allowed to post Outbound Messages$/,
    });
  });

  it('when the proxy is trusted and the forwarded client is inside the range, then the message is acked and stored', async () => {
    harness = await startHarness({ env: { SALESFORCE_ALLOWED_CIDRS: '203.0.113.0/24', TRUST_PROXY: 'loopback' } });

    const response = await harness.post(message()).set('X-Forwarded-For', '203.0.113.9');

    expect(response.status).toBe(200);
    expect(response.text).toContain('<Ack>true</Ack>');
    expect(storedCounts(harness.file)).toEqual({ messages: 1, events: 1, jobs: 1 });
  });

  it('when the proxy is trusted and the forwarded client is outside the range, then 403 fault and nothing stored', async () => {
    harness = await startHarness({ env: { SALESFORCE_ALLOWED_CIDRS: '203.0.113.0/24,2001:db8::/32', TRUST_PROXY: 'loopback' } });

    const response = await harness.post(message()).set('X-Forwarded-For', '198.51.100.7');

    await expectRefused(harness, response, {
      status: 403,
      faultcode: 'soapenv:Client',
      faultstring: 'client address 198.51.100.7 is not allowed to post Outbound Messages',
    });
  });

  it('when the forwarded client is an IPv6 address inside an IPv6 range, then the message is acked', async () => {
    harness = await startHarness({ env: { SALESFORCE_ALLOWED_CIDRS: '203.0.113.0/24,2001:db8::/32', TRUST_PROXY: 'loopback' } });

    const response = await harness.post(message()).set('X-Forwarded-For', '2001:db8::5');

    expect(response.status).toBe(200);
    expect(storedCounts(harness.file).events).toBe(1);
  });

  it('when a direct client (no proxy) is inside the range, then the message is acked', async () => {
    harness = await startHarness({ env: { SALESFORCE_ALLOWED_CIDRS: '127.0.0.0/8,::1/128' } });

    const response = await harness.post(message());

    expect(response.status).toBe(200);
    expect(storedCounts(harness.file).events).toBe(1);
  });

  it.each(['13.108.0.0/40', 'salesforce.com', '13.108.0.0/14/2'])('when an entry is %j, then the start is refused naming the setting', (entry) => {
    expect(() => parseConfig({ SALESFORCE_ALLOWED_CIDRS: `10.0.0.0/8,${entry}` })).toThrow(
      /SALESFORCE_ALLOWED_CIDRS: each entry must be an IPv4 or IPv6 address or CIDR/,
    );
  });
});
