/**
 * Request limits (issue 11, item 7), through real HTTP from two loopback client addresses:
 * failed authentications are limited per client address (429 with Retry-After and the
 * RateLimit headers, before any key lookup, while other addresses and known keys carry on);
 * an unknown key costs one database round trip, not one per request; every key has a
 * request rate, the installation's or its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { from as fromAddress, queriesDuring as countQueries } from './from-address.js';

const FAILURES = 5;
const WINDOW_S = 60;
const KEY_RATE = 3;
const HOLD_MS = 300;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    apiLimits: { keyRate: KEY_RATE, authFailures: FAILURES, authFailureWindowS: WINDOW_S, authFailureDelayMs: HOLD_MS },
  });
});
afterAll(async () => {
  await h?.stop();
});

/** A request from the given loopback address (the server sees it as the client's address). */
const from = (localAddress: string, method: string, path: string, key?: string, body?: unknown) =>
  fromAddress(h, localAddress, method, path, key, body);
const queriesDuring = (run: () => Promise<unknown>) => countQueries(h, run);

const guess = (i: number | string) => `sk_test_guess_${String(i).padStart(43, '0')}`;

describe('failed authentication, per client address', () => {
  it(`answers 401 ${FAILURES} times, then 429 with Retry-After and RateLimit headers`, async () => {
    const wallet = h.wallets['devnet-eth']!;
    for (let i = 0; i < FAILURES; i++) {
      const res = await from('127.0.0.2', 'GET', `/v1/wallets/${wallet.id}`, guess(i));
      expect(res.status).toBe(401);
    }
    const sent = performance.now();
    const refused = await from('127.0.0.2', 'GET', `/v1/wallets/${wallet.id}`, guess('next'));
    expect(refused.status).toBe(429);
    // Held back before it is sent, so a client that waits for answers slows down.
    expect(performance.now() - sent).toBeGreaterThanOrEqual(HOLD_MS - 5);
    expect(refused.body).toMatchObject({ statusCode: 429, error: 'AUTH_RATE_LIMITED', requestId: expect.any(String) });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_S);
    expect(refused.headers).toMatchObject({
      'ratelimit-limit': String(FAILURES),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(retryAfter),
      'ratelimit-policy': `${FAILURES};w=${WINDOW_S}`,
    });
    // No key at all counts the same, and is refused the same.
    expect((await from('127.0.0.2', 'GET', '/v1/blockchains')).status).toBe(429);
  });

  it('refuses the limited address before any lookup: no database query, whatever the key', async () => {
    const wallet = h.wallets['devnet-eth']!;
    const queries = await queriesDuring(async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => from('127.0.0.2', 'GET', `/v1/wallets/${wallet.id}`, guess(`x${i}`))),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(429));
    });
    expect(queries).toBe(0);
    // A real key this process has not seen lately is refused too: it cannot be told apart
    // from a guess without a lookup.
    const fresh = await from('127.0.0.2', 'POST', '/v1/api-keys', h.businessKey, { name: 'never used yet' });
    expect(fresh.status).toBe(429);
  });

  it('another address still authenticates (and fails) as usual', async () => {
    const wallet = h.wallets['devnet-eth']!;
    expect((await from('127.0.0.3', 'GET', `/v1/wallets/${wallet.id}`, guess('other'))).status).toBe(401);
    expect((await from('127.0.0.1', 'GET', `/v1/wallets/${wallet.id}`, wallet.apiKey)).status).toBe(200);
  });

  it('a key that authenticated lately still works from the limited address (clients behind one proxy)', async () => {
    const wallet = h.wallets['devnet-eth']!;
    // It authenticated from 127.0.0.1 just before: it is checked in the database and passes.
    const res = await from('127.0.0.2', 'GET', `/v1/wallets/${wallet.id}`, wallet.apiKey);
    expect(res.status).toBe(200);
    // Once revoked it fails like any bad key, and is refused as such.
    const regen = await from('127.0.0.1', 'POST', `/v1/wallets/${wallet.id}/api-key/regenerate`, h.businessKey);
    expect(regen.status).toBe(200);
    expect((await from('127.0.0.2', 'GET', `/v1/wallets/${wallet.id}`, wallet.apiKey)).status).toBe(429);
    wallet.apiKey = regen.body.data.apiKey;
  });
});

describe('unknown keys', () => {
  it('cost one database round trip, not one per request', async () => {
    const key = guess('repeated');
    const first = await queriesDuring(async () => expect((await from('127.0.0.4', 'GET', '/v1/blockchains', key)).status).toBe(401));
    expect(first).toBeGreaterThanOrEqual(1);
    const again = await queriesDuring(async () => {
      for (let i = 0; i < 3; i++) expect((await from('127.0.0.4', 'GET', '/v1/blockchains', key)).status).toBe(401);
    });
    expect(again).toBe(0);
  });
});

describe('request rate per key', () => {
  /** `n` requests at once with `key`; the statuses and one 429 answer. */
  async function burst(key: string, n: number) {
    const answers = await Promise.all(Array.from({ length: n }, () => from('127.0.0.1', 'GET', '/v1/blockchains', key)));
    return { statuses: answers.map((a) => a.status), refused: answers.find((a) => a.status === 429) };
  }

  it(`holds a key to the installation's rate (${KEY_RATE}/s) with 429, Retry-After and RateLimit headers`, async () => {
    const key = h.wallets['devnet-eth']!.apiKey;
    const started = Date.now();
    const { statuses, refused } = await burst(key, 30);
    // Thirty at once span one or two one-second windows, or more when a loaded machine takes
    // longer than a second to answer them all: KEY_RATE per window they span.
    const windows = Math.floor((Date.now() - started) / 1000) + 2;
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(windows * KEY_RATE);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(refused?.body).toMatchObject({ statusCode: 429, error: 'RATE_LIMITED' });
    expect(refused?.headers).toMatchObject({
      'retry-after': '1',
      'ratelimit-limit': String(KEY_RATE),
      'ratelimit-remaining': '0',
      'ratelimit-policy': `${KEY_RATE};w=1`,
    });
    // Allowed requests say how much is left.
    await new Promise((r) => setTimeout(r, 1_100));
    const ok = await from('127.0.0.1', 'GET', '/v1/blockchains', key);
    expect(ok.status).toBe(200);
    expect(ok.headers).toMatchObject({ 'ratelimit-limit': String(KEY_RATE), 'ratelimit-remaining': String(KEY_RATE - 1) });
  });

  it("uses a key's own rate when it has one (0: unlimited), and keys do not share a budget", async () => {
    await new Promise((r) => setTimeout(r, 1_100));
    const make = async (rateLimit: number) => {
      const res = await from('127.0.0.1', 'POST', '/v1/api-keys', h.businessKey, { name: `rate ${rateLimit}`, rateLimit });
      expect(res.status).toBe(200);
      expect(res.body.data.rateLimit).toBe(rateLimit);
      return res.body.data.apiKey as string;
    };
    const unlimited = await make(0);
    const generous = await make(1_000);
    await new Promise((r) => setTimeout(r, 1_100));
    const a = await burst(unlimited, 30);
    const b = await burst(generous, 30);
    expect(a.statuses).toEqual(Array(30).fill(200));
    expect(b.statuses).toEqual(Array(30).fill(200));
    // The wallet key next to them still has its own (installation) budget.
    const w = await burst(h.wallets['devnet-eth']!.apiKey, 30);
    expect(w.statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});
