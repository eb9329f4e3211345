import { describe, expect, it } from 'vitest';
import { signatureHeaders } from '../lib/webhook-signature.js';
import { verifyWebhook } from './index.js';

const apiKey = 'sk_test_example_key_for_signature_tests_0001';
const body = JSON.stringify({ event: 'deposit.success', data: { id: 'tx-1', amount: '10.5' } });
const now = Date.UTC(2026, 10, 20, 12, 0, 0);
const headers = signatureHeaders(body, { id: 'msg_1', timestamp: now / 1000, apiKey });

describe('verifyWebhook', () => {
  it('accepts an untouched delivery and returns its event and data', () => {
    expect(verifyWebhook({ body, headers, apiKey, now })).toEqual({
      id: 'msg_1',
      timestamp: now / 1000,
      event: 'deposit.success',
      data: { id: 'tx-1', amount: '10.5' },
    });
  });

  it('accepts a Buffer body and a Headers object', () => {
    expect(verifyWebhook({ body: Buffer.from(body), headers: new Headers(headers), apiKey, now }).event).toBe('deposit.success');
  });

  it('refuses a body changed by one character', () => {
    expect(() => verifyWebhook({ body: body.replace('10.5', '10.6'), headers, apiKey, now })).toThrow(/x-service-signature/);
  });

  it('refuses the wrong key, a missing header, an old timestamp and a swapped webhook-id', () => {
    expect(() => verifyWebhook({ body, headers, apiKey: `${apiKey}x`, now })).toThrow(/signature/);
    const { 'webhook-signature': _dropped, ...missing } = headers;
    expect(() => verifyWebhook({ body, headers: missing, apiKey, now })).toThrow(/missing webhook-signature/);
    expect(() => verifyWebhook({ body, headers, apiKey, now: now + 301_000 })).toThrow(/tolerance/);
    expect(() => verifyWebhook({ body, headers: { ...headers, 'webhook-id': 'msg_2' }, apiKey, now })).toThrow(/webhook-signature/);
  });

  it('accepts one matching signature among several (key rotation)', () => {
    const multi = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
    expect(verifyWebhook({ body, headers: multi, apiKey, now }).id).toBe('msg_1');
  });
});
