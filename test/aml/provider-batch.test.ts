/**
 * An HTTP screening provider shared by every business on a chain (docs/aml.md): concurrent
 * screenings are batched, and a provider that does not answer within AML_PROVIDER_TIMEOUT_MS
 * is taken for failing, every screening on the chain failing at once for
 * AML_PROVIDER_RETRY_MS. The timeout used to bound a whole batch of up to 500 addresses,
 * while the HTTP provider asks one address per request, 8 at a time: 500 addresses at an
 * ordinary 50 ms a request take 3 s. So one business's burst of screenings (lookups of fresh
 * addresses, any key may make them; a batch payout; a range of deposits from many senders)
 * made a batch no healthy provider could answer in time, and every other business's payouts
 * on the chain were refused 503 AML_UNAVAILABLE (fail closed) for the retry window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { httpProvider } from '../../src/modules/aml/service.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf } from '../support/chain.js';
import { startProviderDouble, type ProviderDouble } from '../support/aml-provider.js';

const SLUG = 'devnet-eth';
let h: Harness;
let double: ProviderDouble;
/**
 * The provider double's time per request. A call of the old size (500 addresses, 8 requests at
 * a time) takes 63 of them: 12.6 s, twice TIMEOUT_MS, so the old batching still fails here.
 * A call of today's size takes one (8 addresses): the timeout leaves some 5.8 s for this
 * process's own delays. With 50 ms and 2 s, a README run under a load average of 11 on 2 cores
 * once saw calls time out (503 AML_UNAVAILABLE) with nothing wrong but the machine's load.
 */
const LATENCY_MS = 200;
const TIMEOUT_MS = 6_000;
const random = () => privateKeyToAccount(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex).address;

beforeAll(async () => {
  double = await startProviderDouble();
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    services: { amlProviders: [httpProvider({ kind: 'chainalysis', url: double.url, apiKey: double.apiKey })] },
    // The service's cache and retry window; a timeout well above one request's LATENCY_MS,
    // and well below what a call of the old size took (see LATENCY_MS).
    aml: { timeoutMs: TIMEOUT_MS, cacheTtlMs: 60_000, retryMs: 10_000, http: null },
  });
  await chainOf(h, SLUG).sendToken('USDC', h.wallets[SLUG]!.address, '100');
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await double?.stop();
});

describe("one business's burst of screenings and another's payouts", () => {
  it(`a healthy provider answering each address in ${LATENCY_MS} ms is not taken for failing, and the other business still pays`, async () => {
    double.latencyMs = LATENCY_MS;
    // A: another business, holding nothing, asks for nine batch payouts of 100 fresh addresses
    // each at once; each is screened before its funds are looked at (and then refused).
    const other = await h.services.businesses.create('Burst business');
    const A = await h.services.wallets.createForBusiness(other.business.id, { blockchain: SLUG, network: 'testnet', name: 'A' });
    const usdc = h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
    const bursting = Promise.all(
      Array.from({ length: 9 }, () =>
        h.api('POST', `/v1/wallets/${A.wallet.id}/withdraw`, {
          key: A.apiKey,
          body: { assets: Array.from({ length: 100 }, () => ({ id: usdc.id, amount: '1', address: random() })) },
        }),
      ),
    );
    // B: the harness's business, paying fresh addresses on the same chain meanwhile, one after
    // another until A's burst is answered, and once more after.
    const B = h.wallets[SLUG]!;
    let burstDone = false;
    void bursting.then(() => (burstDone = true));
    const answers: unknown[][] = [];
    for (let last = false; !last;) {
      last = burstDone;
      const paid = await h.api('POST', `/v1/wallets/${B.id}/withdraw`, {
        key: B.apiKey,
        body: { assetId: usdc.id, amount: '1', address: random() },
      });
      answers.push([paid.status, paid.body.error ?? paid.body.data.amlScreening.status]);
    }
    expect(answers.length).toBeGreaterThan(1);
    expect(answers.filter(([status]) => status !== 200)).toEqual([]);
    expect(answers.every(([, screened]) => screened === 'CLEAR')).toBe(true);
    // Screened, then refused for want of funds, not for the screening.
    const burst = await bursting;
    expect(burst.map((r) => r.body.error)).toEqual(Array(9).fill('INSUFFICIENT_BALANCE'));
    const { providers } = await h.services.aml.health();
    expect(providers.find((p) => p.provider === 'chainalysis')?.status).toBe('ok');
  }, 90_000);
});
