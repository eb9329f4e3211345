/**
 * The SDK's retries against the real service's limits: 429 (the per-key request rate) and
 * 503 (a chain node down) are sent again after Retry-After or a backoff; POSTs carry an
 * Idempotency-Key that stays the same on each retry of one call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, WalletClient } from '../../packages/sdk/src/index.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';

interface Seen {
  sentAt: number;
  at: number;
  method: string;
  path: string;
  status: number;
  retryAfter: string | null;
  idempotencyKey: string | null;
}

let h: Harness;
let w: TestWallet;
const seen: Seen[] = [];

/** The global fetch, noting every answer (the SDK takes any fetch). */
const recording: typeof fetch = async (input, init) => {
  const sentAt = Date.now();
  const res = await fetch(input, init);
  const headers = new Headers(init?.headers);
  seen.push({
    sentAt,
    at: Date.now(),
    method: init?.method ?? 'GET',
    path: new URL(String(input)).pathname,
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    idempotencyKey: headers.get('idempotency-key'),
  });
  return res;
};

const clientWith = (opts: { maxRetries?: number } = {}) =>
  new WalletClient({ baseUrl: h.baseUrl, apiKey: w.apiKey, fetch: recording, maxRetryDelayMs: 5_000, ...opts });

beforeAll(async () => {
  // Two requests per second per key: a burst is refused with 429 and Retry-After.
  h = await startHarness({ apiLimits: { keyRate: 2, authFailures: 0, authFailureWindowS: 60 } });
  w = h.wallets['devnet-eth']!;
});
afterAll(async () => h?.stop());

describe('retries', () => {
  it('sends reads refused with 429 again after Retry-After, until they succeed', async () => {
    seen.length = 0;
    const client = clientWith({ maxRetries: 6 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => client.blockchains.list()));
    expect(answers.every((a) => a.length > 0)).toBe(true);
    const refused = seen.filter((s) => s.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.status === 200)).toHaveLength(6);
    // Each refusal said when to come back. The six were sent at once, so whatever was sent
    // after the first answer is a retry: none went out before Retry-After had passed.
    for (const r of refused) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    const firstAnswer = Math.min(...seen.map((s) => s.at));
    const retries = seen.filter((s) => s.sentAt > firstAnswer);
    expect(retries).toHaveLength(refused.length);
    const wait = Math.min(...refused.map((r) => Number(r.retryAfter))) * 1000;
    for (const r of retries) expect(r.sentAt - firstAnswer).toBeGreaterThanOrEqual(wait - 50);
  });

  it('gives up with a typed 429 when retries are off', async () => {
    const client = clientWith({ maxRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => client.blockchains.list()));
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toBeInstanceOf(ApiError);
    expect(refused[0]).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryable: true });
    expect((refused[0] as ApiError).retryAfter).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1_100));
  });

  it('keeps one Idempotency-Key per POST call across its retries, and a new one per call', async () => {
    seen.length = 0;
    const client = clientWith({ maxRetries: 6 });
    const made = await Promise.all(Array.from({ length: 5 }, (_, i) => client.addresses.create(w.id, { name: `retry-${i}` })));
    expect(new Set(made.map((a) => a.id)).size).toBe(5);
    const posts = seen.filter((s) => s.method === 'POST');
    expect(posts.every((p) => p.idempotencyKey && /^[0-9a-f-]{36}$/.test(p.idempotencyKey))).toBe(true);
    const succeeded = posts.filter((p) => p.status === 200);
    expect(succeeded).toHaveLength(5);
    expect(new Set(succeeded.map((p) => p.idempotencyKey)).size).toBe(5);
    const retried = posts.filter((p) => p.status === 429);
    expect(retried.length).toBeGreaterThan(0);
    for (const r of retried) expect(succeeded.map((p) => p.idempotencyKey)).toContain(r.idempotencyKey);
    await new Promise((r) => setTimeout(r, 1_100));
  });

  it('retries a 503 (the chain node is down) and then reports it', async () => {
    await h.devnet.stop();
    seen.length = 0;
    const client = clientWith({ maxRetries: 1 });
    const err = await client.balances.list(w.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, retryable: true });
    expect(seen.filter((s) => s.path.endsWith('/balances')).map((s) => s.status)).toEqual([503, 503]);
  });
});
