/**
 * A settlement that swaps at the master holds, against the master's payouts, what all its legs
 * may cost in gas: its approval and swap, and the transfer of the swap's output to the
 * destination. The transfer's fee was left out (only the approval and the swap were held), so
 * a payout of all the hold left free was accepted while the settlement was in flight, and the
 * master was left without the gas of the settlement's last transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { formatAmount, parseAmount } from '../../src/lib/money.js';
import type { Harness } from '../support/harness.js';
import type { TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { drain, freshAddress, startEthSettleWorld, USDC } from './eth-settle-world.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const chain = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!;
const ETHER = 10n ** 18n;
/** Gas of the least transaction (a plain native transfer): the output's transfer costs no less. */
const LEAST_GAS = 21_000n;

beforeAll(async () => {
  ({ h, eth, indexer } = await startEthSettleWorld());
}, 60_000);
afterAll(async () => {
  await h?.startWorker();
  await h?.stop();
});

async function settlementOf(hash: string) {
  const { rows } = await sql<{ id: string; status: string; stage: string; settle_transaction_id: string | null }>`
    SELECT s.id, s.status, s.stage, s.settle_transaction_id FROM auto_settlements s JOIN transactions t ON t.id = s.deposit_id
     WHERE t.type = 'DEPOSIT' AND lower(t.hash) = lower(${hash})`.execute(h.database.db);
  return rows[0];
}

describe("a master's swap-then-transfer settlement in flight", () => {
  it("holds its final transfer's fee: a payout leaving the master only the approval's and swap's gas is refused", async () => {
    const master = wallet().address;
    const native = chain().assets.find((a) => a.is_native)!;
    // The coin is paid out by the API: enabled on the wallet.
    expect((await h.api('POST', `${base()}/assets`, { body: { assetId: native.id } })).status).toBe(200);
    const dest = freshAddress();
    const rule = await h.api('POST', `${base()}/auto-settlements/rules`, {
      body: {
        name: 'into USDT',
        slippageTolerance: '20',
        source: { assets: ['USDC'], blockchain: 'devnet-eth' },
        destination: { asset: 'USDT', address: dest, blockchain: 'devnet-eth' },
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);

    await h.stopWorker(); // the legs wait in the pipeline, unsent
    const receipt = await eth.sendToken('USDC', master, '20'); // straight to the master: swapped there
    await drain(indexer);
    const { rows: deposits } = await sql<{ id: string }>`
      SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${receipt.transactionHash})`.execute(h.database.db);
    await h.services.autoSettlements.takeConfirmed([deposits[0]!.id]);
    await h.services.autoSettlements.executor.run((await settlementOf(receipt.transactionHash))!.id);
    const s = (await settlementOf(receipt.transactionHash))!;
    expect(s).toMatchObject({ status: 'pending', stage: 'sending' });

    // The master's coin, set outright; nothing else of the master's is in flight.
    await eth.rpc('anvil_setBalance', [master, `0x${ETHER.toString(16)}`]);
    const held = await h.services.withdrawals.inFlight(chain(), master, native.id);
    const { rows: leg } = await sql<{ reserved_fee: string }>`
      SELECT reserved_fee FROM transactions WHERE id = ${s.settle_transaction_id}`.execute(h.database.db);
    expect(held.native).toBe(BigInt(leg[0]!.reserved_fee));

    // What the legs queued so far (approval and swap) may cost, at the fee cap the node quotes
    // now (no block mined since they were planned); the transfer of the output, still to come,
    // costs at least the least transaction's gas on top.
    const { rows: queued } = await sql<{ purpose: string; gas: string }>`
      SELECT purpose, network_data->>'gasLimit' AS gas FROM outbound_txs WHERE owner_id = ${s.id}`.execute(h.database.db);
    expect(queued.map((q) => q.purpose).sort()).toEqual(['autosettle-approve', 'autosettle-swap']);
    const { maxFeePerGas } = await eth.pub.estimateFeesPerGas({ type: 'eip1559' });
    const queuedCeiling = queued.reduce((sum, q) => sum + BigInt(q.gas), 0n) * maxFeePerGas;

    // A payout of the master's coin that leaves it the approval's and swap's gas and less than
    // any transfer's (half of one): the settlement's transfer could not be paid.
    const to = freshAddress();
    const probe = { assetId: native.id, address: to, amount: '0.5' };
    const fee = await h.api('POST', `${base()}/withdraw/network-fee`, { body: probe });
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    const payoutFee = parseAmount(fee.body.data.networkFee as string, 18);
    const amount = ETHER - queuedCeiling - payoutFee - (LEAST_GAS / 2n) * maxFeePerGas;
    const payout = await h.api('POST', `${base()}/withdraw`, { body: { ...probe, amount: formatAmount(amount, 18) } });
    expect([payout.status, payout.body.error], payout.body.message as string).toEqual([422, 'INSUFFICIENT_BALANCE']);
    // What the master holds back covers them all.
    expect((await h.services.withdrawals.inFlight(chain(), master, native.id)).native).toBeGreaterThanOrEqual(
      queuedCeiling + LEAST_GAS * maxFeePerGas,
    );

    // The settlement, its gas held, goes through.
    await h.startWorker();
    const done = await eventually(
      async () => {
        await drain(indexer);
        return settlementOf(receipt.transactionHash);
      },
      (r) => r !== undefined && r.status !== 'pending',
      60_000,
    );
    expect(done!.status).toBe('success');
    expect(await eth.balanceOf('USDT', dest)).toBeGreaterThan(19n * USDC);
  }, 120_000);
});
