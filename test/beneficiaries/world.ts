/**
 * What the settlement tests share: a harness on one devnet chain with the worker, fast
 * outbound polling and a fake clock, and readers of runs and transactions.
 */
import { expect } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ManualClock } from '../../src/lib/clock.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/fixtures.js';

export const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

export async function startSettlementWorld(slug: string, clock: ManualClock): Promise<Harness> {
  const spec = DEVNET_CHAINS.find((c) => c.slug === slug)!;
  return startHarness({
    specs: [{ ...spec, confirmations: 1 }],
    clock,
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
}

/** The run of a beneficiary for a period, once it has finished. */
export const runOf = (h: Harness, beneficiaryId: string, period: string) =>
  eventually(
    () => h.services.settlements.findRun(beneficiaryId, period),
    (r) => r !== undefined && r.status !== 'pending',
    20_000,
  );

/**
 * The beneficiary's runs' periods. Assertions count runs rather than what one tick()
 * returned: the worker's own cron tick (every real minute) may create a due run first.
 */
export async function periods(h: Harness, slug: string, beneficiaryId: string): Promise<string[]> {
  const w = h.wallets[slug]!;
  const res = await h.api('GET', `/v1/wallets/${w.id}/beneficiaries/${beneficiaryId}/settlements`, { key: w.apiKey });
  expect(res.status).toBe(200);
  return res.body.data.map((r: { period: string }) => r.period).sort();
}

export async function transactions(h: Harness, slug: string, ids: string[]) {
  const w = h.wallets[slug]!;
  return Promise.all(ids.map(async (id) => (await h.api('GET', `/v1/wallets/${w.id}/transactions/${id}`, { key: w.apiKey })).body.data));
}

/**
 * A DAILY settlement beneficiary of the wallet, auto-settlement switched on, and a rule that
 * sends USDC deposits of 10 or more to a fresh destination: the beneficiary's response and
 * the destination.
 */
export async function dailyTreasuryAndRule(h: Harness, w: { id: string; apiKey: string }, slug: string) {
  const b = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
    key: w.apiKey,
    body: { name: 'Daily treasury', address: randomAddress(), settlementFrequency: 'DAILY' },
  });
  expect(b.status).toBe(200);
  const dest = randomAddress();
  expect((await h.api('PATCH', `/v1/wallets/${w.id}/auto-settlements`, { key: w.apiKey, body: { isActive: true } })).status).toBe(200);
  const rule = await h.api('POST', `/v1/wallets/${w.id}/auto-settlements/rules`, {
    key: w.apiKey,
    body: {
      name: 'big deposits out',
      source: { assets: ['USDC'], blockchain: slug, minAmount: '10' },
      destination: { asset: 'USDC', address: dest, blockchain: slug },
    },
  });
  expect(rule.status).toBe(200);
  return { b, dest };
}
