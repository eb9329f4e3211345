import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signatureHeaders } from '../../src/lib/webhook-signature.js';
import {
  MemoryReplayStore,
  verifyWebhook,
  verifyWebhookAsync,
  WebhookVerificationError,
  type ReplayStore,
} from '../../packages/sdk/src/webhooks/index.js';

const apiKey = 'sk_test_example_key_for_signature_tests_0001';
const body = JSON.stringify({ event: 'deposit.success', data: { id: 'tx-1', amount: '10.5' } });
const now = Date.UTC(2026, 10, 20, 12, 0, 0);
const headers = signatureHeaders(body, { id: 'msg_1', timestamp: now / 1000, apiKey });
// Most cases are about signatures: each gets a fresh guard.
const fresh = () => new MemoryReplayStore();

function failure(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err;
    throw err;
  }
  throw new Error('verification passed');
}

describe('verifyWebhook', () => {
  it('accepts an untouched delivery and returns its event and data', () => {
    expect(verifyWebhook({ body, headers, apiKey, now, replay: fresh() })).toEqual({
      id: 'msg_1',
      timestamp: now / 1000,
      event: 'deposit.success',
      data: { id: 'tx-1', amount: '10.5' },
    });
  });

  it('accepts a Buffer, Uint8Array or ArrayBuffer body and a Headers object', () => {
    const bytes = Buffer.from(body);
    for (const b of [bytes, new Uint8Array(bytes), bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)]) {
      expect(verifyWebhook({ body: b, headers: new Headers(headers), apiKey, now, replay: fresh() }).event).toBe('deposit.success');
    }
  });

  it('refuses a body changed by one character', () => {
    expect(() => verifyWebhook({ body: body.replace('10.5', '10.6'), headers, apiKey, now, replay: fresh() })).toThrow(
      /x-service-signature/,
    );
  });

  it('refuses the wrong key, a missing header, an old timestamp and a swapped webhook-id', () => {
    expect(() => verifyWebhook({ body, headers, apiKey: `${apiKey}x`, now, replay: fresh() })).toThrow(/signature/);
    const { 'webhook-signature': _dropped, ...missing } = headers;
    expect(() => verifyWebhook({ body, headers: missing, apiKey, now, replay: fresh() })).toThrow(/missing webhook-signature/);
    expect(failure(() => verifyWebhook({ body, headers, apiKey, now: now + 301_000, replay: fresh() })).reason).toBe('timestamp');
    expect(() => verifyWebhook({ body, headers: { ...headers, 'webhook-id': 'msg_2' }, apiKey, now, replay: fresh() })).toThrow(
      /webhook-signature/,
    );
  });

  it('accepts one matching signature among several (key rotation)', () => {
    const multi = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
    expect(verifyWebhook({ body, headers: multi, apiKey, now, replay: fresh() }).id).toBe('msg_1');
  });
});

describe("x-blockradar-signature (the described service's name for the HMAC-SHA512)", () => {
  const { 'x-service-signature': hmac, ...rest } = headers;
  it('is read when x-service-signature is absent', () => {
    expect(verifyWebhook({ body, headers: { ...rest, 'x-blockradar-signature': hmac }, apiKey, now, replay: fresh() }).id).toBe('msg_1');
  });
  it('must match too when both are present; neither is a missing header', () => {
    const forged = { ...headers, 'x-blockradar-signature': '0'.repeat(128) };
    expect(() => verifyWebhook({ body, headers: forged, apiKey, now, replay: fresh() })).toThrow(/x-blockradar-signature does not match/);
    expect(failure(() => verifyWebhook({ body, headers: rest, apiKey, now, replay: fresh() })).reason).toBe('header');
  });
});

describe('raw bytes are what is verified', () => {
  it('a body with a 0xff byte does not verify against other bytes that decode to the same text', () => {
    // 0xff and 0xfe are both invalid UTF-8: decoded first, both became U+FFFD and matched.
    const signed = Buffer.concat([Buffer.from('{"event":"x","data":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    const other = Buffer.from(signed);
    other[signed.length - 3] = 0xfe;
    const h = signatureHeaders(signed, { id: 'msg_b', timestamp: now / 1000, apiKey });
    expect(failure(() => verifyWebhook({ body: other, headers: h, apiKey, now, replay: fresh() })).reason).toBe('signature');
    // The signed bytes themselves verify; they are not UTF-8, so they are refused as a body.
    expect(failure(() => verifyWebhook({ body: signed, headers: h, apiKey, now, replay: fresh() })).reason).toBe('body');
  });

  it('a multi-byte UTF-8 body verifies as bytes and as a string', () => {
    const text = JSON.stringify({ event: 'deposit.success', data: { note: 'café ₮ 💸' } });
    const h = signatureHeaders(text, { id: 'msg_u', timestamp: now / 1000, apiKey });
    expect(verifyWebhook({ body: Buffer.from(text), headers: h, apiKey, now, replay: fresh() }).data).toEqual({ note: 'café ₮ 💸' });
    expect(verifyWebhook({ body: text, headers: h, apiKey, now, replay: fresh() }).event).toBe('deposit.success');
  });
});

describe('timestamps', () => {
  it('refuses a timestamp more than 60 s ahead (290 s was accepted) and accepts small skew', () => {
    const ahead = (s: number) => signatureHeaders(body, { id: `msg_f${s}`, timestamp: now / 1000 + s, apiKey });
    const err = failure(() => verifyWebhook({ body, headers: ahead(290), apiKey, now, replay: fresh() }));
    expect(err.reason).toBe('timestamp');
    expect(err.message).toMatch(/future/);
    expect(() => verifyWebhook({ body, headers: ahead(61), apiKey, now, replay: fresh() })).toThrow(/future/);
    expect(verifyWebhook({ body, headers: ahead(60), apiKey, now, replay: fresh() }).id).toBe('msg_f60');
    expect(verifyWebhook({ body, headers: ahead(300), apiKey, now, replay: fresh(), futureToleranceSeconds: 300 }).id).toBe('msg_f300');
  });

  it('accepts 300 s old, refuses 301 s old', () => {
    expect(verifyWebhook({ body, headers, apiKey, now: now + 300_999, replay: fresh() }).id).toBe('msg_1');
    expect(() => verifyWebhook({ body, headers, apiKey, now: now + 301_000, replay: fresh() })).toThrow(/too old/);
  });

  it('refuses a window that is not a number of seconds (NaN compared false: every old body passed, and replays too)', () => {
    // e.g. toleranceSeconds: Number(process.env.WEBHOOK_TOLERANCE) with the variable unset.
    const store = fresh();
    const late = now + 3_600_000;
    expect(() => verifyWebhook({ body, headers, apiKey, now: late, replay: store, toleranceSeconds: Number(undefined) })).toThrow(
      TypeError,
    );
    expect(() => verifyWebhook({ body, headers, apiKey, now: late, replay: store, futureToleranceSeconds: NaN })).toThrow(TypeError);
    expect(() => verifyWebhook({ body, headers, apiKey, now, replay: store, toleranceSeconds: -1 })).toThrow(TypeError);
  });
});

describe('replay guard', () => {
  it('accepts a captured delivery once; the three replays within the window are refused', () => {
    const store = fresh();
    expect(verifyWebhook({ body, headers, apiKey, now, replay: store }).id).toBe('msg_1');
    for (const later of [1_000, 60_000, 299_000]) {
      expect(failure(() => verifyWebhook({ body, headers, apiKey, now: now + later, replay: store })).reason).toBe('replay');
    }
  });

  it('is on by default (one store per process)', () => {
    const h = signatureHeaders(body, { id: 'msg_default', timestamp: now / 1000, apiKey });
    expect(verifyWebhook({ body, headers: h, apiKey, now }).id).toBe('msg_default');
    expect(() => verifyWebhook({ body, headers: h, apiKey, now })).toThrow(/replay/);
    expect(verifyWebhook({ body, headers: h, apiKey, now, replay: false }).id).toBe('msg_default');
  });

  it("a retry (same webhook-id, the retry's own timestamp) is accepted", () => {
    const store = fresh();
    const retry = signatureHeaders(body, { id: 'msg_1', timestamp: now / 1000 + 300, apiKey });
    verifyWebhook({ body, headers, apiKey, now, replay: store });
    expect(verifyWebhook({ body, headers: retry, apiKey, now: now + 300_000, replay: store }).id).toBe('msg_1');
  });

  it('a forged attempt is not remembered (it cannot block the real one)', () => {
    const store = fresh();
    const forged = { ...headers, 'webhook-signature': 'v1,AAAA', 'x-service-signature': '00' };
    expect(() => verifyWebhook({ body, headers: forged, apiKey, now, replay: store })).toThrow(/signature/);
    expect(store.size).toBe(0);
    expect(verifyWebhook({ body, headers, apiKey, now, replay: store }).id).toBe('msg_1');
  });

  it('keeps entries for the timestamp window only, within a bound', () => {
    const store = new MemoryReplayStore(3);
    for (let i = 0; i < 5; i++) expect(store.claim(`k${i}`, now + 1000, now)).toBe(true);
    expect(store.size).toBe(3);
    expect(store.claim('k4', now + 1000, now)).toBe(false);
    expect(store.claim('k0', now + 1000, now)).toBe(true); // evicted by the bound
    expect(store.claim('k4', now + 5000, now + 1000)).toBe(true); // expired
  });

  it('works with an asynchronous store through verifyWebhookAsync', async () => {
    const seen = new Set<string>();
    const store: ReplayStore = { claim: async (key) => !seen.has(key) && !!seen.add(key) };
    expect((await verifyWebhookAsync({ body, headers, apiKey, now, replay: store })).id).toBe('msg_1');
    await expect(verifyWebhookAsync({ body, headers, apiKey, now, replay: store })).rejects.toThrow(/replay/);
    expect(() => verifyWebhook({ body, headers, apiKey, now, replay: store as never })).toThrow(/verifyWebhookAsync/);
  });
});

describe('webhook signing secrets', () => {
  const a = generateWebhookSecret();
  const b = generateWebhookSecret();

  it('verifies webhook-signature with the whsec_ secret alone (no API key needed)', () => {
    const h = signatureHeaders(body, { id: 'msg_s', timestamp: now / 1000, apiKey, secrets: [a.bytes] });
    expect(a.text).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(verifyWebhook({ body, headers: h, secret: a.text, now, replay: fresh() }).id).toBe('msg_s');
    expect(() => verifyWebhook({ body, headers: h, secret: b.text, now, replay: fresh() })).toThrow(/webhook-signature/);
    // Keyed with the secret only: an API-key-only receiver cannot check the timestamp binding.
    expect(() => verifyWebhook({ body, headers: h, apiKey, now, replay: fresh() })).toThrow(/webhook-signature/);
    // Both: x-service-signature with the API key, webhook-signature with the secret.
    expect(verifyWebhook({ body, headers: h, apiKey, secret: a.text, now, replay: fresh() }).id).toBe('msg_s');
  });

  it('during an overlap the header carries both signatures and each secret verifies', () => {
    const h = signatureHeaders(body, { id: 'msg_o', timestamp: now / 1000, apiKey, secrets: [b.bytes, a.bytes] });
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyWebhook({ body, headers: h, secret: a.text, now, replay: fresh() }).id).toBe('msg_o');
    expect(verifyWebhook({ body, headers: h, secret: b.text, now, replay: fresh() }).id).toBe('msg_o');
    expect(verifyWebhook({ body, headers: h, secret: [a.text, b.text], now, replay: fresh() }).id).toBe('msg_o');
  });

  it('signs with the API key too while apiKeyStandard is set (the first overlap)', () => {
    const h = signatureHeaders(body, { id: 'msg_l', timestamp: now / 1000, apiKey, secrets: [a.bytes], apiKeyStandard: true });
    expect(verifyWebhook({ body, headers: h, apiKey, now, replay: fresh() }).id).toBe('msg_l');
    expect(verifyWebhook({ body, headers: h, secret: a.text, now, replay: fresh() }).id).toBe('msg_l');
  });

  it('refuses a malformed secret and a call with no key at all', () => {
    expect(() => verifyWebhook({ body, headers, secret: 'whsec_short', now, replay: fresh() })).toThrow(/whsec_/);
    expect(() => verifyWebhook({ body, headers, now, replay: fresh() })).toThrow(TypeError);
  });

  it('refuses an empty API key: anyone can sign with it (WALLET_API_KEY= set but empty, as a .env file leaves it)', () => {
    // The forger's delivery: both signatures keyed with the empty string.
    const forged = signatureHeaders(body, { id: 'msg_forged', timestamp: now / 1000, apiKey: '' });
    expect(() => verifyWebhook({ body, headers: forged, apiKey: '', now, replay: fresh() })).toThrow(TypeError);
    // Nor beside a real secret (x-service-signature would be checked with the empty key).
    const secret = generateWebhookSecret().text;
    expect(() => verifyWebhook({ body, headers, apiKey: '', secret, now, replay: fresh() })).toThrow(TypeError);
  });
});
