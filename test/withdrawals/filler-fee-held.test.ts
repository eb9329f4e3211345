/**
 * A withdrawal cancelled before it was signed is CANCELLED at once and its nonce goes to a
 * 0-value self-transfer (the filler), which pays a fee from the sender's native coin. The
 * withdrawal's own hold ends with it, so the filler's fee must be held in its place (its
 * fee ceiling, withdrawals/store.ts heldBack) until the filler is mined: a payout of the
 * sender's whole balance accepted meanwhile comes after the filler in nonce order, and with
 * the filler's fee spent it could never be mined.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatEther, parseEther, toHex, type Address } from 'viem';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import {
  chainOf,
  enableNative,
  newChild,
  randomAddress,
  settledTx,
  startWorld,
  txAction,
  withdraw,
  type TestChain,
  type World,
} from './world.js';

const ETH = 'devnet-eth';
let w: World;
let eth: TestChain;
let native: string;

beforeAll(async () => {
  w = await startWorld({ specs: [DEVNET_CHAINS[0]!] });
  eth = chainOf(w.h, ETH);
  native = await enableNative(w.h, ETH);
});
afterAll(async () => {
  await w?.stop();
});

it("a cancelled withdrawal's filler keeps its fee held until it is mined; the payout after it lands", async () => {
  const child = await newChild(w.h, ETH);
  const balance = 10n ** 16n; // 0.01 ETH, set outright: no deposit, no sweep
  await eth.rpc('anvil_setBalance', [child.address, toHex(balance)]);
  // One fee for every request below: the devnet's fee now, generously (a fixed gasPrice).
  const gasPrice = ((await eth.pub.estimateFeesPerGas()).maxFeePerGas * 3n).toString();
  const body = (amount: bigint) => ({ assetId: native, address: randomAddress(), amount: formatEther(amount), gasPrice });

  await w.h.stopWorker();
  let later = '';
  try {
    const first = await withdraw(w.h, ETH, body(1n), { addressId: child.id });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const cancelled = await txAction(w.h, ETH, 'cancel', first.body.data.id);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.data.status).toBe('CANCELLED');
    // Its nonce went to the filler, not sent yet (no worker); the voided row's fee ceiling is what it holds.
    const { rows } = await sql<{ ceiling: string; stage: string; purpose: string }>`
      SELECT v.fee_ceiling AS ceiling, f.stage, f.purpose FROM outbound_txs v JOIN outbound_txs f ON f.id = v.replaced_by
       WHERE v.owner_id = ${first.body.data.id}`.execute(w.h.database.db);
    expect(rows).toMatchObject([{ stage: 'created', purpose: 'nonce-filler' }]);
    const fillerFee = BigInt(rows[0]!.ceiling);
    expect(fillerFee).toBeGreaterThan(0n);

    const quoted = await withdraw(w.h, ETH, body(1n), { addressId: child.id, fee: true });
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(200);
    const payoutFee = parseEther(quoted.body.data.networkFee);
    expect(payoutFee).toBeGreaterThan(0n);

    // The whole balance less the payout's own fee: the filler's fee is not there to spend.
    const whole = await withdraw(w.h, ETH, body(balance - payoutFee), { addressId: child.id });
    expect(whole.status, JSON.stringify(whole.body)).toBe(422);
    expect(whole.body.error).toBe('INSUFFICIENT_BALANCE');
    // Less the filler's fee as well, it is accepted.
    const fits = await withdraw(w.h, ETH, body(balance - payoutFee - fillerFee), { addressId: child.id });
    expect(fits.status, JSON.stringify(fits.body)).toBe(200);
    later = fits.body.data.id;
  } finally {
    await w.h.startWorker();
  }
  // The filler is mined first, then the payout: both landed, nothing stuck behind the filler's nonce.
  expect((await settledTx(w.h, ETH, later)).status).toBe('SUCCESS');
  expect(await eth.pub.getTransactionCount({ address: child.address as Address })).toBe(2);
});
