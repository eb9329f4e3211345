/**
 * The Idempotency-Key of a POST: one per call, the caller's when given (as the option or as
 * the header the HTTP API documents, in any case), and told back when the outcome is unknown.
 * Header names are merged without case: a caller's `Idempotency-Key` beside the client's own
 * `idempotency-key` went out as one joined value ("k, <uuid>"), a new key on every call that
 * the service refuses. A recording fetch answers; nothing else is needed.
 */
import { describe, expect, it } from 'vitest';
import { TimeoutError, WalletClient } from '../../packages/sdk/src/index.js';

const body = { assetId: '00000000-0000-4000-8000-000000000001', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount: '1.5' };

function recording() {
  const sent: Headers[] = [];
  const fetchFn: typeof fetch = async (_input, init) => {
    sent.push(new Headers(init?.headers));
    return new Response(JSON.stringify({ data: { id: 'tx-1' }, message: 'ok', statusCode: 200 }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { sent, fetchFn };
}

describe('headers of a call', () => {
  it('sends a caller-given Idempotency-Key as given, in any case: the same key twice is the same withdrawal', async () => {
    const { sent, fetchFn } = recording();
    const client = new WalletClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_test_x', fetch: fetchFn });
    await client.withdrawals.create('w1', body, { headers: { 'Idempotency-Key': 'payout-981' } });
    await client.withdrawals.create('w1', body, { headers: { 'IDEMPOTENCY-KEY': 'payout-981' } });
    await client.withdrawals.create('w1', body, { idempotencyKey: 'payout-982' });
    expect(sent.map((h) => h.get('idempotency-key'))).toEqual(['payout-981', 'payout-981', 'payout-982']);
  });

  it('refuses an option and a header that name different keys, sending nothing', async () => {
    const { sent, fetchFn } = recording();
    const client = new WalletClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_test_x', fetch: fetchFn });
    await expect(client.withdrawals.create('w1', body, { idempotencyKey: 'a', headers: { 'Idempotency-Key': 'b' } })).rejects.toThrow(
      /disagree/,
    );
    expect(sent).toHaveLength(0);
  });

  it('a client-wide Content-Type or API key header replaces the client default instead of joining it', async () => {
    const { sent, fetchFn } = recording();
    const client = new WalletClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'sk_test_x',
      fetch: fetchFn,
      headers: { 'Content-Type': 'application/json; charset=utf-8', Accept: 'application/json' },
    });
    await client.withdrawals.create('w1', body);
    expect(sent[0]!.get('content-type')).toBe('application/json; charset=utf-8');
    expect(sent[0]!.get('accept')).toBe('application/json');
    expect(sent[0]!.get('x-api-key')).toBe('sk_test_x');
  });
});

describe('a POST whose outcome is unknown', () => {
  it('tells the key it was sent with (the same on every retry), to send it again as the same request', async () => {
    const keys: string[] = [];
    const hanging: typeof fetch = (_input, init) => {
      keys.push(new Headers(init?.headers).get('idempotency-key')!);
      return new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));
    };
    const client = new WalletClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'sk_test_x',
      fetch: hanging,
      timeoutMs: 50,
      maxRetries: 1,
      maxRetryDelayMs: 10,
    });
    const err = await client.withdrawals.create('w1', body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
    expect((err as TimeoutError).idempotencyKey).toBe(keys[0]);
  });
});
