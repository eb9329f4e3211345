/**
 * A swap from a child that the master tops up first costs the master the top-up's value and
 * its own fee. The swap's reservation checks both against the master's pending spends, but
 * once the swap was accepted only the value was held (the top-up's outbound row): a payout of
 * all the master's coin but the top-up's value, accepted while the top-up was still unsent,
 * left one of the two to be refused on chain. The worker is off: the top-up waits unsent until
 * the test drives it, then the payout, both to mined.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { formatEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

const SLUG = 'devnet-eth';
let h: Harness;
let eth: TestChain;

const wallet = () => h.wallets[SLUG]!;
const base = () => `/v1/wallets/${wallet().id}`;
const assetId = (symbol: string) => h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === symbol)!.id;
const payee = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  h = await startHarness({ specs: DEVNET_CHAINS.filter((c) => c.slug === SLUG).map((c) => ({ ...c, confirmations: 1 })) });
  eth = chainOf(h, SLUG);
  const enabled = await h.api('POST', `${base()}/assets`, { body: { assetId: assetId('ETH') } });
  expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
}, 90_000);
afterAll(async () => {
  await h?.stop();
});

async function settle(id: string) {
  await h.services.outbound.send(id).catch(() => undefined);
  return eventually(
    async () => {
      await h.services.outbound.track(id).catch(() => undefined);
      return (await h.services.outbound.get(id))!;
    },
    (r) => !['created', 'signed', 'broadcast'].includes(r.stage),
    30_000,
  );
}
const ether = (wei: bigint) => formatEther(wei);
async function payoutFee(amount: bigint): Promise<bigint> {
  const res = await h.api('POST', `${base()}/withdraw/network-fee`, {
    body: { assetId: assetId('ETH'), address: payee, amount: ether(amount) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return BigInt(Math.round(Number(res.body.data.networkFee) * 1e18));
}

describe("a child swap's top-up fee at the master", () => {
  it('is held while the top-up is unsent: a payout of the rest is refused, one that leaves it is made', async () => {
    const made = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const child = made.body.data as { id: string; address: string };
    await eth.sendToken('USDC', child.address, '50');
    const swap = await h.api('POST', `${base()}/addresses/${child.id}/swaps/execute`, {
      body: { fromAssetId: assetId('USDC'), toAssetId: assetId('USDT'), amount: '50' },
    });
    expect(swap.status, JSON.stringify(swap.body)).toBe(200);
    const { rows: topups } = await sql<{ id: string; value: string; stage: string; fee: string | null }>`
      SELECT o.id, o.value::text, o.stage, s.topup_fee::text AS fee
        FROM outbound_txs o JOIN swaps s ON s.id = o.owner_id
       WHERE o.owner_id = ${swap.body.data.id} AND o.purpose = 'swap-topup'`.execute(h.database.db);
    expect(topups.map((t) => t.stage)).toEqual(['created']);
    const topup = BigInt(topups[0]!.value);
    const topupFee = BigInt(topups[0]!.fee!);
    expect(topupFee).toBeGreaterThan(0n);

    // All the master's coin but the top-up's value, its own fee and half the top-up's fee.
    const balance = await eth.pub.getBalance({ address: wallet().address as Address });
    const rest = balance - topup;
    const greedy = rest - (await payoutFee(rest)) - topupFee / 2n;
    const refused = await h.api('POST', `${base()}/withdraw`, { body: { assetId: assetId('ETH'), address: payee, amount: ether(greedy) } });
    expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([422, 'INSUFFICIENT_BALANCE']);

    // Leaving the top-up's fee (twice over): accepted, and both are made.
    const fits = greedy - 2n * topupFee;
    const ok = await h.api('POST', `${base()}/withdraw`, { body: { assetId: assetId('ETH'), address: payee, amount: ether(fits) } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await settle(topups[0]!.id)).stage).toBe('mined');
    const { rows: legs } = await sql<{ id: string }>`
      SELECT id FROM outbound_txs WHERE wallet_id = ${wallet().id} AND from_address = ${wallet().address} AND purpose = 'withdraw'`.execute(
      h.database.db,
    );
    expect(legs).toHaveLength(1);
    expect((await settle(legs[0]!.id)).stage).toBe('mined');
    expect(await eth.pub.getBalance({ address: payee })).toBe(fits);
  }, 180_000);
});
