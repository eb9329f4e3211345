/**
 * A settlement from a Tron child that the master tops up first: the top-up that creates the
 * child costs the master 1.1 TRX beside its value (and its bandwidth). The settlement's
 * reservation checks the value and that fee against the master's pending spends, but once
 * recorded only the value was held (the top-up's outbound row): a payout of all the master's
 * TRX but the top-up's value, accepted while the top-up was still unsent, left the master short
 * of the top-up's own fee, and one of the two was refused on chain (java-tron: balance is not
 * sufficient) and waited unsent until the master was refilled. A sweep's and a recovery's
 * top-up fees are held (sweeps.master_fee, salvages.master_fee); a settlement's now are too.
 * The worker is off: each row is driven by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, sendToken, startForTest, type Wallet } from '../../../src/devnet/tron/testkit.js';
import type { Harness } from '../../support/harness.js';
import { eventually } from '../../support/fixtures.js';
import { createTronWallet, startTronService, tronChain, type TronWallet } from './world.js';
import { masterFeeKit } from './master-fee-kit.js';

let s: TronStandIn;
let h: Harness;
let wallet: TronWallet;
let payer: Wallet;
const SLUG = 'tron-settle-topup-fee';

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 100 });
  h = await startTronService([tronChain(s, SLUG, 990_351)], false);
  wallet = await createTronWallet(h, s, SLUG, { trx: 100_000_000, usdt: 1_000_000n });
  await s.control.produceBlocks(1);
  payer = await fundedWallet(s, 1_000_000_000, { USDT: 1_000_000_000n });
}, 90_000);
afterAll(async () => {
  await h?.stop();
  await s?.stop();
});

const api = (method: string, path: string, body?: unknown) => h.api(method, `${base()}${path}`, { key: wallet.apiKey, body });
const { base, trxOf, settle, payoutFee } = masterFeeKit(() => ({ s, h, slug: SLUG, wallet, payer }));

describe("a child settlement's top-up fee at the master", () => {
  it('is held while the top-up is unsent: a payout of the rest of the TRX is refused, one that leaves it is made', async () => {
    const res = await api('POST', '/addresses', { disableAutoSweep: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = res.body.data as { id: string; address: string };
    expect((await api('PATCH', '/auto-settlements', { isActive: true })).status).toBe(200);
    const dest = await fundedWallet(s, 10_000_000, { USDT: 1_000_000n });
    const rule = await api('POST', `/addresses/${child.id}/auto-settlements/rules`, {
      name: 'to treasury',
      source: { assets: ['USDT'], blockchain: SLUG },
      destination: { asset: 'USDT', address: dest.address, blockchain: SLUG },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);

    // A USDT deposit to the child (not activated: its top-up creates it, 1.1 TRX more to the master).
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    while ((await indexer.step()) === 'progress');
    const sent = await sendToken(s, payer, s.tokens[0]!.address, child.address, 5_000_000n);
    expect(sent.result, JSON.stringify(sent)).toBe(true);
    const [deposit] = await eventually(
      async () => {
        await indexer.step();
        const { rows } = await sql<{ id: string; status: string }>`
          SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${sent.txid as string}`.execute(h.database.db);
        return rows;
      },
      (r) => r[0]?.status === 'SUCCESS',
      90_000,
    );
    await h.services.autoSettlements.takeConfirmed([deposit!.id]);
    const { rows: queued } = await sql<{ id: string }>`SELECT id FROM auto_settlements WHERE deposit_id = ${deposit!.id}`.execute(
      h.database.db,
    );
    expect(queued).toHaveLength(1);
    await h.services.autoSettlements.executor.run(queued[0]!.id);
    const { rows: topups } = await sql<{ id: string; value: string; stage: string }>`
      SELECT id, value::text, stage FROM outbound_txs WHERE owner_id = ${queued[0]!.id} AND purpose = 'autosettle-topup'`.execute(
      h.database.db,
    );
    expect(topups.map((t) => t.stage)).toEqual(['created']);
    const topup = BigInt(topups[0]!.value);

    // All the master's TRX but the top-up's value (and the payout's own fee): the top-up's own
    // fee (1.1 TRX to create the child) is not there any more.
    const balance = await trxOf(wallet.address);
    const rest = balance - topup;
    const greedy = rest - (await payoutFee(rest));
    const refused = await api('POST', '/withdraw', {
      assetId: wallet.trxId,
      address: payer.address,
      amount: (Number(greedy) / 1e6).toFixed(6),
    });
    expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([422, 'INSUFFICIENT_BALANCE']);

    // Leaving the top-up's fee: accepted, and both are made.
    const fits = greedy - 1_500_000n;
    const ok = await api('POST', '/withdraw', { assetId: wallet.trxId, address: payer.address, amount: (Number(fits) / 1e6).toFixed(6) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await settle(topups[0]!.id)).stage).toBe('mined');
    const { rows: legs } = await sql<{ id: string }>`
      SELECT id FROM outbound_txs WHERE wallet_id = ${wallet.id} AND from_address = ${wallet.address} AND purpose = 'withdraw'
       ORDER BY created_at DESC LIMIT 1`.execute(h.database.db);
    expect((await settle(legs[0]!.id)).stage).toBe('mined');
  }, 240_000);
});
