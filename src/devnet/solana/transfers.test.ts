// The stand-in driven through @solana/kit as a production adapter drives a real node: SOL and
// SPL transfers with exact amounts and fees, balances in block and transaction metadata, a
// fee payer other than the token owner, rent reclaimed on close, priority fees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, getBase64Decoder, getBase64Encoder, getTransactionDecoder, type Address } from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { ata, build, fundedSigner, send, startWorld, type World } from './test-support.js';

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.standIn.stop();
});

const slot = (n = 1) => w.standIn.control.produceSlots(n);

async function balance(address: Address, commitment: 'processed' | 'confirmed' | 'finalized' = 'processed') {
  return (await w.rpc.getBalance(address, { commitment }).send()).value;
}

describe('SOL transfers', () => {
  it('moves the exact lamports and charges 5,000 lamports per signature', async () => {
    const alice = await fundedSigner(w, 2_000_000_000n);
    const bob = await generateKeyPairSigner();
    slot();
    const sig = await send(w.rpc, alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 1_234_567n })]);
    slot(2);
    expect(await balance(bob.address)).toBe(1_234_567n);
    expect(await balance(alice.address)).toBe(2_000_000_000n - 1_234_567n - 5_000n);
    const tx = await w.rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(tx?.meta?.fee).toBe(5_000n);
    expect(tx?.meta?.err).toBeNull();
    expect(tx?.meta?.preBalances.slice(0, 2)).toEqual([2_000_000_000n, 0n]);
    expect(tx?.meta?.postBalances.slice(0, 2)).toEqual([2_000_000_000n - 1_234_567n - 5_000n, 1_234_567n]);
    expect(tx?.transaction.message.accountKeys.slice(0, 2)).toEqual([alice.address, bob.address]);
  });

  it('refuses a transfer that would leave a new account below the rent-exempt minimum', async () => {
    const alice = await fundedSigner(w, 1_000_000_000n);
    const bob = await generateKeyPairSigner();
    slot();
    const err = await send(w.rpc, alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 1_000n })]).catch(
      (e: unknown) => e as Error & { context?: Record<string, unknown> },
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/simulation failed/i);
    expect(await balance(bob.address)).toBe(0n);
  });
});

describe('SPL transfers', () => {
  it('credits an ATA the sender creates in the same transaction, with pre/post token balances', async () => {
    const sender = await fundedSigner(w);
    const recipient = await generateKeyPairSigner();
    await w.standIn.control.mintTo('USDC', sender.address, 50_000_000n);
    slot();
    const from = await ata(sender.address, w.usdc);
    const to = await ata(recipient.address, w.usdc);
    const sig = await send(w.rpc, sender, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: sender, ata: to, owner: recipient.address, mint: w.usdc }),
      getTransferCheckedInstruction({ source: from, mint: w.usdc, destination: to, authority: sender, amount: 12_500_000n, decimals: 6 }),
    ]);
    slot(2);
    const tx = await w.rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    const keys = tx!.transaction.message.accountKeys;
    const pre = tx!.meta!.preTokenBalances!;
    const post = tx!.meta!.postTokenBalances!;
    // The recipient's account did not exist before: it has a post balance only.
    expect(pre.map((b) => keys[b.accountIndex])).toEqual([from]);
    expect(pre[0]).toMatchObject({
      mint: w.usdc,
      owner: sender.address,
      uiTokenAmount: { amount: '50000000', decimals: 6, uiAmountString: '50' },
    });
    const byAccount = Object.fromEntries(post.map((b) => [keys[b.accountIndex]!, b]));
    expect(byAccount[to]).toMatchObject({
      mint: w.usdc,
      owner: recipient.address,
      programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      uiTokenAmount: { amount: '12500000', decimals: 6, uiAmount: 12.5, uiAmountString: '12.5' },
    });
    expect(byAccount[from]?.uiTokenAmount.amount).toBe('37500000');
    // The rent for the new account came from the sender, on top of the fee.
    const rent = await w.rpc.getMinimumBalanceForRentExemption(165n).send();
    expect(tx!.meta!.preBalances[0]! - tx!.meta!.postBalances[0]!).toBe(rent + tx!.meta!.fee);

    // The same metadata in the block.
    const block = await w.rpc
      .getBlock(tx!.slot, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, transactionDetails: 'full', rewards: false })
      .send();
    const inBlock = block!.transactions.find((t) => t.transaction.signatures[0] === sig)!;
    expect(inBlock.meta!.postTokenBalances).toEqual(post);
    expect(inBlock.meta!.preTokenBalances).toEqual(pre);

    const bal = await w.rpc.getTokenAccountBalance(to, { commitment: 'confirmed' }).send();
    expect(bal.value).toEqual({ amount: '12500000', decimals: 6, uiAmount: 12.5, uiAmountString: '12.5' });
    const owned = await w.rpc.getTokenAccountsByOwner(recipient.address, { mint: w.usdc }, { encoding: 'jsonParsed' }).send();
    expect(owned.value.map((a) => a.pubkey)).toEqual([to]);
    expect(owned.value[0]!.account.data.parsed.info).toMatchObject({ mint: w.usdc, owner: recipient.address, state: 'initialized' });
  });

  it('lets a master pay the fee and rent of a child sweep, then reclaims the emptied account rent', async () => {
    const master = await fundedSigner(w);
    const child = await generateKeyPairSigner(); // holds no SOL at all
    await w.standIn.control.mintTo('USDC', child.address, 7_000_000n);
    slot();
    const childAta = await ata(child.address, w.usdc);
    const masterAta = await ata(master.address, w.usdc);
    const rent = await w.rpc.getMinimumBalanceForRentExemption(165n).send();
    const childAtaLamports = await balance(childAta);
    expect(childAtaLamports).toBe(rent);
    const before = await balance(master.address);
    const sig = await send(w.rpc, master, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: master, ata: masterAta, owner: master.address, mint: w.usdc }),
      getTransferCheckedInstruction({
        source: childAta,
        mint: w.usdc,
        destination: masterAta,
        authority: child,
        amount: 7_000_000n,
        decimals: 6,
      }),
      getCloseAccountInstruction({ account: childAta, destination: master.address, owner: child }),
    ]);
    slot(2);
    const tx = await w.rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(tx!.meta!.err).toBeNull();
    expect(tx!.meta!.fee).toBe(10_000n); // two signatures: master and child
    expect(tx!.transaction.signatures).toHaveLength(2);
    expect(await balance(child.address)).toBe(0n);
    // master: - fee - rent of its new ATA + rent reclaimed from the child's ATA
    expect(await balance(master.address)).toBe(before - 10_000n - rent + childAtaLamports);
    expect((await w.rpc.getAccountInfo(childAta, { commitment: 'confirmed' }).send()).value).toBeNull();
    expect((await w.rpc.getTokenAccountBalance(masterAta, { commitment: 'confirmed' }).send()).value.amount).toBe('7000000');
  });
});

describe('priority fees', () => {
  it('charges unit price x limit and shows the price in getRecentPrioritizationFees', async () => {
    const payer = await fundedSigner(w);
    const dest = await fundedSigner(w, 1_000_000_000n);
    slot();
    const before = await balance(payer.address);
    const built = await build(w.rpc, payer, [
      getSetComputeUnitLimitInstruction({ units: 50_000 }),
      getSetComputeUnitPriceInstruction({ microLamports: 2_500_000n }),
      getTransferSolInstruction({ source: payer, destination: dest.address, amount: 1n }),
    ]);
    const message = getBase64Decoder().decode(getTransactionDecoder().decode(getBase64Encoder().encode(built.wire)).messageBytes);
    const quoted = (await w.rpc.getFeeForMessage(message as never).send()).value;
    const sig = await w.rpc.sendTransaction(built.wire, { encoding: 'base64' }).send();
    slot();
    const landed = (await w.rpc.getSignatureStatuses([sig]).send()).value[0]!.slot;
    slot();
    const priority = (50_000n * 2_500_000n) / 1_000_000n; // 125,000 lamports
    expect(await balance(payer.address)).toBe(before - 1n - 5_000n - priority);
    const tx = await w.rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(tx!.meta!.fee).toBe(5_000n + priority);
    const fees = await w.rpc.getRecentPrioritizationFees().send();
    expect(fees.find((f) => f.slot === landed)?.prioritizationFee).toBe(2_500_000n);
    const forAccount = await w.rpc.getRecentPrioritizationFees([dest.address]).send();
    expect(forAccount.find((f) => f.slot === landed)?.prioritizationFee).toBe(2_500_000n);
    // getFeeForMessage quoted what was charged.
    expect(quoted).toBe(tx!.meta!.fee);
  });
});
