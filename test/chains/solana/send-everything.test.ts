/**
 * "Send everything" from the master on Solana: the client asks the network fee and sends its
 * balance less that fee, which the funds check accepts (nothing left). The priority fee is
 * quoted again when the worker signs; one that fell meanwhile (the recent prioritization fees
 * move every block on the cluster) must not leave the master holding the difference: a system
 * account left between nothing and its rent-exempt minimum makes the runtime refuse the
 * transaction, so the payout the service accepted would never be paid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { generateKeyPairSigner } from '@solana/kit';
import { build } from '../../../src/devnet/solana/test-support.js';
import { eventually } from '../../support/fixtures.js';
import { lamports, onChain, outsider, solOf, startSolanaWorld, txOf, walletApi, type SolanaWorld } from './withdrawals-world.js';

let w: SolanaWorld;
beforeAll(async () => {
  w = await startSolanaWorld('solana-send-everything');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const SIGNATURE_FEE = 5_000n;

/** Lamports as the API's SOL decimal string. */
const sol = (v: bigint) => `${v / 1_000_000_000n}.${(v % 1_000_000_000n).toString().padStart(9, '0')}`;

describe("the master's whole SOL balance", () => {
  it('is sent whole when the priority fee fell between acceptance and signing: the master is left with nothing, not refused dust', async () => {
    const PRICE = 50_000n;
    const busy = await generateKeyPairSigner();
    await w.sol.control.fund(busy.address, 1_000_000_000n);
    const to = outsider();
    w.sol.control.pause();
    let id: string;
    let quoted: bigint;
    try {
      w.sol.control.produceSlots(150);
      // 60 of the last 150 blocks hold a transaction writing the master at PRICE micro-lamports a unit.
      for (let i = 0; i < 60; i++) {
        const built = await build(w.rpc, busy, [
          getSetComputeUnitPriceInstruction({ microLamports: PRICE }),
          getTransferSolInstruction({ source: busy, destination: w.wallet.address as never, amount: 1 }),
        ]);
        await w.rpc.sendTransaction(built.wire, { encoding: 'base64' }).send();
        w.sol.control.produceSlots(1);
      }
      w.sol.control.produceSlots(2);
      await w.h.stopWorker();
      const balance = await solOf(w, w.wallet.address);
      const estimate = await walletApi(w, 'POST', '/withdraw/network-fee', { assetId: w.solId, address: to, amount: '1' });
      expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
      quoted = lamports(estimate.body.data.networkFee);
      // The quote bids the recent price: more than the signature alone.
      expect(quoted).toBeGreaterThan(SIGNATURE_FEE);
      const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.solId, address: to, amount: sol(balance - quoted) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      // 150 blocks without a priced transaction: the price the worker reads when it signs is 0.
      w.sol.control.produceSlots(151);
    } finally {
      w.sol.control.resume();
      await w.h.startWorker();
    }
    const done = await eventually(
      () => txOf(w, id!),
      (t) => t.status !== 'PENDING',
      30_000,
    );
    expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
    const tx = await onChain(w, done.hash);
    // The master paid exactly the fee it was quoted, and holds nothing.
    expect(tx.meta!.fee).toBe(quoted!);
    expect(lamports(done.fee)).toBe(quoted!);
    expect(await solOf(w, w.wallet.address)).toBe(0n);
  }, 120_000);
});
