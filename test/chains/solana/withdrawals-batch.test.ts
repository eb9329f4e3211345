/**
 * The building block of batch withdrawals in one Solana transaction (chains/solana/batch.ts),
 * against the validator stand-in: how many createAssociatedTokenIdempotent + transferChecked
 * pairs fit Solana's 1,232-byte packet (from the master; from a child with the master paying;
 * to recipients whose accounts exist), and the largest such transaction landing on the real
 * runtime with every recipient paid exactly and the fee payer paying the fee and each rent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519';
import { startWorld, type World } from '../../../src/devnet/solana/test-support.js';
import { SolanaNode } from '../../../src/chains/solana/rpc.js';
import { SolanaBalances } from '../../../src/chains/solana/balances.js';
import { PACKET_BYTES, compileTransfers, transfersThatFit, wireSize, type SolanaBatchPlan } from '../../../src/chains/solana/batch.js';
import { signCompiled } from '../../../src/chains/solana/tx.js';

const ATA_RENT = 2_039_280n;
let w: World;
let balances: SolanaBalances;

beforeAll(async () => {
  w = await startWorld();
  balances = new SolanaBalances(new SolanaNode(w.standIn.url));
  w.standIn.control.produceSlots(2); // the mint confirmed
});
afterAll(async () => {
  await w?.standIn.stop();
});

function keypair() {
  const secret = ed25519.utils.randomPrivateKey();
  return { secret, address: base58.encode(ed25519.getPublicKey(secret)) };
}

async function planOf(feePayer: string, owner: string, n: number, create: boolean): Promise<SolanaBatchPlan> {
  const { value: lifetime } = await w.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  return {
    feePayer,
    owner,
    mint: { address: w.usdc, ...(await balances.mintsOf([w.usdc])).get(w.usdc)! },
    transfers: Array.from({ length: n }, (_x, i) => ({
      recipient: keypair().address,
      amount: BigInt(1_000_000 + i),
      createRecipientAccount: create,
    })),
    computeUnits: 400_000,
    microLamportsPerUnit: 1n,
    lifetime,
  };
}

describe('several SPL transfers in one Solana transaction', () => {
  it('fits 9 new-account transfers from the master, 8 from a child, 19 and 17 when the accounts exist', async () => {
    const [master, child] = [keypair(), keypair()];
    expect(await transfersThatFit(await planOf(master.address, master.address, 12, true))).toBe(9);
    expect(await transfersThatFit(await planOf(master.address, child.address, 12, true))).toBe(8);
    expect(await transfersThatFit(await planOf(master.address, master.address, 25, false))).toBe(19);
    expect(await transfersThatFit(await planOf(master.address, child.address, 25, false))).toBe(17);
    const nine = await planOf(master.address, master.address, 10, true);
    expect(wireSize(await compileTransfers({ ...nine, transfers: nine.transfers.slice(0, 9) }))).toBeLessThanOrEqual(PACKET_BYTES);
    expect(wireSize(await compileTransfers(nine))).toBeGreaterThan(PACKET_BYTES);
  });

  it("the largest batch from a child lands once: every recipient paid exactly, the master pays the fee and every new account's rent", async () => {
    const [master, child] = [keypair(), keypair()];
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, child.address, 100_000_000n);
    w.standIn.control.produceSlots(2);
    const all = await planOf(master.address, child.address, 12, true);
    const plan = { ...all, transfers: all.transfers.slice(0, await transfersThatFit(all)) };
    expect(plan.transfers).toHaveLength(8);
    const compiled = await compileTransfers(plan);
    expect(compiled.signers).toEqual([master.address, child.address]);
    const keys = [master, child];
    const signed = signCompiled(compiled, (signer, message) => ed25519.sign(message, keys.find((k) => k.address === signer)!.secret));
    const masterBefore = (await w.rpc.getBalance(master.address as never, { commitment: 'confirmed' }).send()).value;
    expect(await w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64', preflightCommitment: 'confirmed' }).send()).toBe(
      signed.hash,
    );
    w.standIn.control.produceSlots(2);
    const tx = await w.rpc
      .getTransaction(signed.hash as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(tx?.meta?.err).toBeNull();
    const got = await balances.getBalances(plan.transfers.map((t) => ({ owner: t.recipient, token: w.usdc })));
    expect(got).toEqual(plan.transfers.map((t) => t.amount));
    const sent = plan.transfers.reduce((s, t) => s + t.amount, 0n);
    const [left] = await balances.getBalances([{ owner: child.address, token: w.usdc }]);
    expect(left).toBe(100_000_000n - sent);
    const masterAfter = (await w.rpc.getBalance(master.address as never, { commitment: 'confirmed' }).send()).value;
    expect(masterBefore - masterAfter).toBe(tx!.meta!.fee + 8n * ATA_RENT);
    // Two signatures and the priority fee of 400,000 units at 1 micro-lamport: ceil(0.4) = 1.
    expect(tx!.meta!.fee).toBe(10_001n);
  });
});
