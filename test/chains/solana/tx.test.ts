/**
 * Solana transfers as the family builds and signs them (chains/solana/tx.ts), sent to the
 * validator stand-in (litesvm: the real System, SPL Token and ATA programs): the master pays
 * every fee while a child holding no SOL signs as owner; the recipient's token account is
 * created on the way (its rent paid by the master); the child's emptied token account is
 * closed, its rent back to the master. Exact lamports and token amounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519';
import type { Address } from '@solana/kit';
import { startWorld, type World } from '../../../src/devnet/solana/test-support.js';
import { SolanaNode } from '../../../src/chains/solana/rpc.js';
import { SolanaBalances } from '../../../src/chains/solana/balances.js';
import { compileTransfer, signCompiled, type SolanaTransferPlan } from '../../../src/chains/solana/tx.js';

let w: World;
let balances: SolanaBalances;

beforeAll(async () => {
  w = await startWorld();
  balances = new SolanaBalances(new SolanaNode(w.standIn.url));
});
afterAll(async () => {
  await w?.standIn.stop();
});

const slots = (n = 1) => w.standIn.control.produceSlots(n);

function keypair() {
  const secret = ed25519.utils.randomPrivateKey();
  return { secret, address: base58.encode(ed25519.getPublicKey(secret)) };
}
type Keypair = ReturnType<typeof keypair>;

async function plan(p: Partial<SolanaTransferPlan> & Pick<SolanaTransferPlan, 'feePayer' | 'owner' | 'recipient' | 'amount'>) {
  const { value: lifetime } = await w.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const mint = p.mint === undefined ? { address: w.usdc, ...(await balances.mintsOf([w.usdc])).get(w.usdc)! } : p.mint;
  return { createRecipientAccount: false, closeSourceAccount: false, computeUnits: 60_000, microLamportsPerUnit: 0n, lifetime, ...p, mint };
}

async function sendSigned(transfer: SolanaTransferPlan, keys: Keypair[]) {
  const compiled = await compileTransfer(transfer);
  const signed = signCompiled(compiled, (signer, message) => ed25519.sign(message, keys.find((k) => k.address === signer)!.secret));
  const sig = await w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
  expect(sig).toBe(signed.hash);
  slots(2);
  return { compiled, sig };
}

const sol = async (a: string) => (await w.rpc.getBalance(a as Address, { commitment: 'confirmed' }).send()).value;
const usdc = async (owner: string) => (await balances.getBalances([{ owner, token: w.usdc }]))[0]!;

describe('Solana transfers built by the family', () => {
  it('a child with no SOL sends USDC to a new recipient: the master pays the fee and the new account rent, and gets the child account rent back', async () => {
    const master = keypair();
    const child = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, child.address, 2_500_000n);
    slots(2);
    const masterBefore = await sol(master.address);
    const childAccountRent = await sol(await balances.tokenAccount(child.address, w.usdc));
    expect(await sol(child.address)).toBe(0n);

    const { compiled, sig } = await sendSigned(
      await plan({
        feePayer: master.address,
        owner: child.address,
        recipient: recipient.address,
        amount: 2_500_000n,
        createRecipientAccount: true,
        closeSourceAccount: true,
        microLamportsPerUnit: 1_000n,
      }),
      [master, child],
    );
    expect(compiled.signers).toEqual([master.address, child.address]);
    const tx = await w.rpc
      .getTransaction(sig as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(tx?.meta?.err).toBeNull();
    // Two signatures at 5,000 lamports, plus ceil(1,000 micro-lamports x 60,000 units / 10^6) = 60.
    expect(tx?.meta?.fee).toBe(10_060n);
    const newAccountRent = await sol(await balances.tokenAccount(recipient.address, w.usdc));
    expect(newAccountRent).toBe(2_039_280n);
    expect(await usdc(recipient.address)).toBe(2_500_000n);
    expect(await usdc(child.address)).toBe(0n);
    expect(await sol(await balances.tokenAccount(child.address, w.usdc))).toBe(0n); // closed
    expect(await sol(child.address)).toBe(0n);
    expect(await sol(master.address)).toBe(masterBefore - 10_060n - newAccountRent + childAccountRent);
  });

  it('SOL from the master to a new account: one signature, exact lamports', async () => {
    const master = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    slots(2);
    const { compiled } = await sendSigned(
      await plan({ feePayer: master.address, owner: master.address, recipient: recipient.address, amount: 5_000_000n, mint: null }),
      [master],
    );
    expect(compiled.signers).toEqual([master.address]);
    expect(await sol(recipient.address)).toBe(5_000_000n);
    expect(await sol(master.address)).toBe(1_000_000_000n - 5_000_000n - 5_000n);
  });

  it('a signature by the wrong key is refused by the node', async () => {
    const master = keypair();
    const child = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, child.address, 10n);
    slots(2);
    const compiled = await compileTransfer(
      await plan({ feePayer: master.address, owner: child.address, recipient: master.address, amount: 10n, createRecipientAccount: true }),
    );
    const wrong = keypair();
    const signed = signCompiled(compiled, (signer, message) => ed25519.sign(message, (signer === master.address ? master : wrong).secret));
    await expect(w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64' }).send()).rejects.toThrow(/signature verification/i);
    expect(await usdc(child.address)).toBe(10n);
  });
});
