/**
 * A failed check costs close to nothing, from any number of addresses (issue 24, item 2):
 * a key not shaped like ours is refused without a lookup; past the failed-auth budget,
 * random keys from a new address each are refused (429) without a lookup while a key that
 * authenticated lately goes on, and a new good key gets in once the second is over;
 * refusals write no log line and are counted by reason instead. The throughput figure is a
 * benchmark (bench/auth-flood.ts, distributed flood), not a timed test.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailureBudget } from '../../src/http/auth.js';
import { startHarness, type Harness } from '../support/harness.js';
import { from as fromAddress, queriesDuring as countQueries, type Answer } from './from-address.js';

const BUDGET = 5;

let h: Harness;

beforeAll(async () => {
  // No per-address limit: every request below comes from an address of its own anyway.
  const apiLimits = { keyRate: 0, authFailures: 0, authFailureWindowS: 60, authFailureDelayMs: 50, authFailureBudget: BUDGET };
  h = await startHarness({ apiLimits });
});
afterAll(async () => {
  await h?.stop();
});

const from = (localAddress: string, path: string, key?: string) => fromAddress(h, localAddress, 'GET', path, key);
const queriesDuring = (run: () => Promise<unknown>) => countQueries(h, run);
const randomKey = () => `sk_test_${randomBytes(32).toString('base64url')}`;
const statuses = (answers: Answer[]) =>
  answers.reduce<Record<number, number>>((n, a) => ({ ...n, [a.status]: (n[a.status] ?? 0) + 1 }), {});
/** Waits for the start of the next second: the budget's window. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));

async function refusalCounts(): Promise<Record<string, number>> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  return Object.fromEntries([...text.matchAll(/^api_auth_refusals_total\{reason="(\w+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

describe('the failed-auth budget', () => {
  it('takes a slot per lookup and gives it back for a good key; a new second starts afresh', () => {
    let now = 10_000;
    const budget = new FailureBudget(3, () => now);
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
    budget.refund();
    expect([budget.take(), budget.take()]).toEqual([true, false]);
    now += 1_000;
    expect(budget.take()).toBe(true);
    expect(new FailureBudget(0).take()).toBe(true);
  });
});

describe('a key not shaped like ours', () => {
  it('is a 401 without a hash or a database query', async () => {
    const wallet = h.wallets['devnet-eth']!;
    const odd = [
      'hunter2-hunter2-hunter2',
      `sk_test_${'$'.repeat(43)}`,
      `Bearer ${wallet.apiKey}`,
      `sk_test_${'a'.repeat(300)}`,
      'sk_test_short',
    ];
    const queries = await queriesDuring(async () => {
      for (const key of odd) expect((await from('127.30.0.1', `/v1/wallets/${wallet.id}`, key)).status).toBe(401);
    });
    expect(queries).toBe(0);
    expect((await refusalCounts()).malformed).toBe(odd.length);
  });
});

describe('a random-key flood from a new address per request', () => {
  it('past the budget is refused with 429 without a lookup, while a key seen lately goes on, then a new good key gets in', async () => {
    const wallet = h.wallets['devnet-eth']!;
    const path = `/v1/wallets/${wallet.id}`;
    // What the good request costs alone (its lookup and its handler's queries).
    const alone = await queriesDuring(async () => expect((await from('127.0.0.1', path, wallet.apiKey)).status).toBe(200));
    const fresh = await h.services.apiKeys.createBusinessKey({ keyId: 'test', businessId: h.businessId, walletId: null }, { name: 'new' });
    await nextSecond();

    let known: Answer | undefined;
    let answers: Answer[] = [];
    const queries = await queriesDuring(async () => {
      const flood = Promise.all(Array.from({ length: 60 }, (_, i) => from(`127.20.0.${i + 1}`, path, randomKey())));
      // A key that authenticated lately, from an address it never used, in the middle of the flood.
      known = await from('127.20.1.1', path, wallet.apiKey);
      answers = await flood;
    });
    expect(known!.status).toBe(200);
    const counted = statuses(answers);
    // At most the budget per second looked up (the flood may straddle the edge of a second).
    expect(counted[401] ?? 0).toBeGreaterThanOrEqual(1);
    expect(counted[401] ?? 0).toBeLessThanOrEqual(2 * BUDGET);
    expect(counted[429]).toBe(60 - (counted[401] ?? 0));
    const shed = answers.find((a) => a.status === 429)!;
    expect(shed.body).toMatchObject({ statusCode: 429, error: 'AUTH_RATE_LIMITED' });
    expect(shed.headers['retry-after']).toBe('1');
    // A lookup per checked key at most (they are batched), none for the refused ones, plus the good request's.
    expect(queries).toBeLessThanOrEqual((counted[401] ?? 0) + alone);

    // A good key this process never saw may be refused while the flood spends the budget; a second later it gets in.
    await nextSecond();
    const res = await fromAddress(h, '127.20.2.1', 'GET', '/v1/wallets', fresh.apiKey);
    expect(res.status).toBe(200);
    const metrics = await refusalCounts();
    expect(metrics.shed).toBe(counted[429]);
    expect(metrics.unknown).toBe(counted[401]);
  });

  it("a new key's first burst spends one lookup and one slot of the budget, whatever its size", async () => {
    const fresh = await h.services.apiKeys.createBusinessKey(
      { keyId: 'test', businessId: h.businessId, walletId: null },
      { name: 'burst' },
    );
    // 200 requests of a key this process never saw, checked at once (before any lookup ends):
    // each used to take a slot, so past the budget a new client's first burst was refused.
    let slots = 0;
    const probe = h.services.apiKeys.probe(fresh.apiKey);
    const checks = await Promise.all(Array.from({ length: 200 }, () => h.services.apiKeys.check(probe, () => ++slots > 0)));
    expect(checks.every((c) => c.auth?.keyId === checks[0]!.auth!.keyId)).toBe(true);
    expect(slots).toBe(1);
    // Through HTTP: a burst of a new key is answered, and leaves the budget whole for others.
    const other = await h.services.apiKeys.createBusinessKey(
      { keyId: 'test', businessId: h.businessId, walletId: null },
      { name: 'burst 2' },
    );
    await nextSecond();
    const answers = await Promise.all(Array.from({ length: 50 }, () => h.api('GET', '/v1/wallets', { key: other.apiKey })));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    const random = await Promise.all(Array.from({ length: BUDGET }, (_, i) => from(`127.30.2.${i + 1}`, '/v1/wallets', randomKey())));
    expect(statuses(random)).toEqual({ 401: BUDGET });
  });

  it('writes no log line per refusal; an accepted request is logged as before', async () => {
    const wallet = h.wallets['devnet-eth']!;
    await nextSecond();
    const refused = await Promise.all(Array.from({ length: 20 }, (_, i) => from(`127.21.0.${i + 1}`, '/v1/blockchains', randomKey())));
    const accepted = await from('127.21.1.1', `/v1/wallets/${wallet.id}?page=1`, wallet.apiKey);
    expect(accepted.status).toBe(200);
    const logs = h.logs();
    for (const answer of refused) expect(logs).not.toContain(answer.headers['x-request-id'] as string);
    const lines = logs.split('\n').filter((l) => l.includes(accepted.headers['x-request-id'] as string));
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    expect(lines.join('\n')).toContain(`/v1/wallets/${wallet.id}?page=1`);
  });
});
