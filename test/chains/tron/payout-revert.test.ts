/**
 * A TRC-20 payout that would revert by the time it is signed. The withdrawal is accepted
 * (the master holds the USDT; the quote's fee limit is stored with the row), then the
 * master's USDT goes away on chain before the worker signs it. As on EVM (eth_estimateGas
 * right before signing), the call is estimated again when the send job prepares it: the node
 * says it would fail, the row is voided unsigned, the withdrawal ends FAILED with the reason
 * and withdraw.failed is sent; nothing is broadcast, so no TRX is burned for energy or
 * bandwidth.
 */
import { hexToBytes } from '@noble/hashes/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, newWallet, tokenBalance, tronWeb } from '../../../src/devnet/tron/testkit.js';
import { events, hex41, outboundRows, startTronWorld, txOf, walletApi, type TronWorld } from './world.js';

let w: TronWorld;

beforeAll(async () => {
  w = await startTronWorld('tron-payout-revert');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const trxOf = async (address: string) => BigInt(await balance(w.s, hex41(address)));
const usdtOf = (address: string) => tokenBalance(w.s, w.usdt, address);

/** A TRC-20 transfer of all the master's USDT to `to`, signed outside the pipeline with the service's own key of the master. */
async function drainMaster(to: string): Promise<void> {
  const tw = tronWeb(w.s);
  const all = await usdtOf(w.wallet.address);
  const built = await tw.transactionBuilder.triggerSmartContract(
    w.usdt,
    'transfer(address,uint256)',
    { feeLimit: 100_000_000 },
    [
      { type: 'address', value: to },
      { type: 'uint256', value: all.toString() },
    ],
    w.wallet.address,
  );
  const tx = built.transaction;
  const { r, s, recovery } = await w.h.services.signer.withKey(w.wallet.id, 0, w.wallet.address, (key) =>
    key.signDigest(hexToBytes(tx.txID)),
  );
  const signature = r.toString(16).padStart(64, '0') + s.toString(16).padStart(64, '0') + (27 + recovery).toString(16);
  const sent = await tw.trx.sendRawTransaction({ ...tx, signature: [signature] });
  expect(sent.result, JSON.stringify(sent)).toBe(true);
  await w.s.control.produceBlocks(1);
}

describe('a TRC-20 payout that would revert when it is signed', () => {
  it('is voided unsigned: FAILED with the reason, withdraw.failed, nothing broadcast, no TRX burned', async () => {
    const to = newWallet();
    await w.s.control.fund(to.address, { trx: 10_000_000 });
    await w.s.control.produceBlocks(1);
    await w.h.stopWorker();
    let id: string;
    let trxBefore: bigint;
    try {
      const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdtId, address: to.address, amount: '1' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      // The balance goes away after acceptance: the transfer now reverts (ERC20InsufficientBalance).
      await drainMaster(newWallet().address);
      expect(await usdtOf(w.wallet.address)).toBe(0n);
      trxBefore = await trxOf(w.wallet.address);
    } finally {
      await w.h.startWorker();
    }

    const [event] = await events(w, id!, 'withdraw.failed');
    expect(event!.data.status).toBe('FAILED');
    expect(event!.data.reason).toMatch(/voided before signing, the transaction would revert/);
    // As a voided EVM payout: FAILED with the reason, no hash, no fee, nothing to confirm.
    const done = await txOf(w, id!);
    expect(done).toMatchObject({ status: 'FAILED', hash: null, fee: null, confirmed: false });
    expect(done.reason).toMatch(/would revert/);
    const rows = await outboundRows(w, id!);
    expect(rows.map((r) => [r.stage, r.hash])).toEqual([['replaced', null]]);
    expect(rows[0]!.error).toMatch(/would revert/);
    await w.s.control.produceBlocks(2);
    // Nothing was broadcast: no bandwidth, no energy burned, the recipient got nothing.
    expect(await trxOf(w.wallet.address)).toBe(trxBefore!);
    expect(await usdtOf(to.address)).toBe(0n);
  });
});
