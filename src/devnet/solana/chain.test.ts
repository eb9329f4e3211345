// The chain behaviour a Solana adapter relies on: commitment levels kept apart, blockhash
// expiry at lastValidBlockHeight, a dropped fork undoing a confirmed transfer, state and
// history surviving a restart, and slots on a timer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  generateKeyPairSigner,
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  type Blockhash,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { ata, build, fundedSigner, send, startWorld, type World } from './test-support.js';

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.standIn.stop();
});

const slot = (n = 1) => w.standIn.control.produceSlots(n);

describe('commitments', () => {
  it('moves a transaction from processed to confirmed to finalized, 1 and 32 blocks deep', async () => {
    const alice = await fundedSigner(w);
    const bob = await generateKeyPairSigner();
    slot();
    const sig = await send(w.rpc, alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 5_000_000n })]);
    const statusOf = async () => (await w.rpc.getSignatureStatuses([sig]).send()).value[0];
    expect(await statusOf()).toMatchObject({ confirmationStatus: 'processed', err: null });
    // Not in a block yet: history and confirmed reads do not see it.
    expect(
      await w.rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send(),
    ).toBeNull();
    expect((await w.rpc.getBalance(bob.address, { commitment: 'processed' }).send()).value).toBe(5_000_000n);
    expect((await w.rpc.getBalance(bob.address, { commitment: 'confirmed' }).send()).value).toBe(0n);

    slot(); // the block holding it
    const landed = (await statusOf())!.slot;
    expect(await statusOf()).toMatchObject({ confirmationStatus: 'processed', confirmations: 0n });
    await expect(w.rpc.getBlock(landed, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }).send()).rejects.toThrow(
      /Block not available/,
    );

    slot(); // one block on top: confirmed
    expect(await statusOf()).toMatchObject({ confirmationStatus: 'confirmed', confirmations: 1n, slot: landed });
    expect((await w.rpc.getSlot({ commitment: 'confirmed' }).send()) >= landed).toBe(true);
    expect((await w.rpc.getBalance(bob.address, { commitment: 'confirmed' }).send()).value).toBe(5_000_000n);
    expect((await w.rpc.getBalance(bob.address, { commitment: 'finalized' }).send()).value).toBe(0n);
    expect(
      await w.rpc.getTransaction(sig, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 }).send(),
    ).toBeNull();
    await expect(w.rpc.getBlock(landed, { commitment: 'finalized', maxSupportedTransactionVersion: 0 }).send()).rejects.toThrow(
      /Block not available/,
    );

    slot(31); // 32 blocks on top: finalized
    expect(await statusOf()).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });
    expect(await w.rpc.getSlot({ commitment: 'finalized' }).send()).toBe(landed);
    expect((await w.rpc.getBalance(bob.address, { commitment: 'finalized' }).send()).value).toBe(5_000_000n);
    const block = await w.rpc
      .getBlock(landed, { commitment: 'finalized', maxSupportedTransactionVersion: 0, transactionDetails: 'signatures' })
      .send();
    expect(block!.signatures).toContain(sig);

    const processed = await w.rpc.getSlot({ commitment: 'processed' }).send();
    const confirmed = await w.rpc.getSlot({ commitment: 'confirmed' }).send();
    const finalized = await w.rpc.getSlot({ commitment: 'finalized' }).send();
    expect([processed - confirmed, processed - finalized]).toEqual([1n, 32n]);
  });
});

describe('blockhash expiry', () => {
  it('accepts a blockhash up to lastValidBlockHeight and refuses it after, as "Blockhash not found"', async () => {
    const alice = await fundedSigner(w);
    const bob = await generateKeyPairSigner();
    slot();
    const tooLate = await build(
      w.rpc,
      alice,
      [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 1_000_000n })],
      'processed',
    );
    const justInTime = await build(
      w.rpc,
      alice,
      [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 2_000_000n })],
      'processed',
    );
    const height = await w.rpc.getBlockHeight({ commitment: 'processed' }).send();
    expect(tooLate.lastValidBlockHeight).toBe(height + 150n);
    // The next block is the last one allowed to include it.
    slot(149);
    expect(await w.rpc.getBlockHeight({ commitment: 'processed' }).send()).toBe(justInTime.lastValidBlockHeight - 1n);
    await w.rpc.sendTransaction(justInTime.wire, { encoding: 'base64' }).send();
    slot();
    const landed = (await w.rpc.getSignatureStatuses([justInTime.signature]).send()).value[0];
    expect(landed?.slot).toBe(await w.rpc.getSlot({ commitment: 'processed' }).send());
    expect(await w.rpc.getBlockHeight({ commitment: 'processed' }).send()).toBe(justInTime.lastValidBlockHeight);

    const isValid = (await w.rpc.isBlockhashValid(tooLate.blockhash as Blockhash, { commitment: 'processed' }).send()).value;
    expect(isValid).toBe(false);
    const err = await w.rpc
      .sendTransaction(tooLate.wire, { encoding: 'base64' })
      .send()
      .catch((e: unknown) => e);
    expect(isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
    // kit decodes the node's `err` ("BlockhashNotFound") into the cause.
    expect(isSolanaError((err as Error).cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)).toBe(true);
    // Without preflight the node takes it and it never lands.
    await w.rpc.sendTransaction(tooLate.wire, { encoding: 'base64', skipPreflight: true }).send();
    slot(2);
    expect((await w.rpc.getSignatureStatuses([tooLate.signature], { searchTransactionHistory: true }).send()).value[0]).toBeNull();
    expect((await w.rpc.getBalance(bob.address, { commitment: 'processed' }).send()).value).toBe(2_000_000n);
  });
});

describe('a dropped fork', () => {
  it('undoes a confirmed transfer and its ATA, and frees the signature', async () => {
    const sender = await fundedSigner(w);
    const recipient = await generateKeyPairSigner();
    await w.standIn.control.mintTo('USDC', sender.address, 3_000_000n);
    slot(40); // funding and minting finalized
    const from = await ata(sender.address, w.usdc);
    const to = await ata(recipient.address, w.usdc);
    await w.standIn.control.mintTo('USDC', recipient.address, 1n); // creates the recipient ATA
    slot();
    const senderLamports = (await w.rpc.getBalance(sender.address, { commitment: 'processed' }).send()).value;
    const sig = await send(w.rpc, sender, [
      getTransferCheckedInstruction({ source: from, mint: w.usdc, destination: to, authority: sender, amount: 2_000_000n, decimals: 6 }),
    ]);
    slot(2);
    expect((await w.rpc.getSignatureStatuses([sig]).send()).value[0]?.confirmationStatus).toBe('confirmed');
    const landed = (await w.rpc.getSignatureStatuses([sig]).send()).value[0]!.slot;
    expect((await w.rpc.getTokenAccountBalance(to, { commitment: 'confirmed' }).send()).value.amount).toBe('2000001');

    const dropped = w.standIn.control.dropSlots(3); // the mint's block, the transfer's, the one on top
    expect(dropped.signatures).toContain(sig);
    expect(dropped.slots).toContain(landed);
    expect((await w.rpc.getSignatureStatuses([sig], { searchTransactionHistory: true }).send()).value[0]).toBeNull();
    expect((await w.rpc.getAccountInfo(to, { commitment: 'processed' }).send()).value).toBeNull();
    expect((await w.rpc.getTokenAccountBalance(from, { commitment: 'processed' }).send()).value.amount).toBe('3000000');
    expect((await w.rpc.getBalance(sender.address, { commitment: 'processed' }).send()).value).toBe(senderLamports);
    // Above the (now lower) confirmed slot: not available yet.
    await expect(w.rpc.getBlock(landed, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }).send()).rejects.toThrow(
      /Block not available/,
    );

    // The chain goes on from the fork point with new slot numbers; the dropped ones were skipped.
    slot();
    const next = await w.rpc.getSlot({ commitment: 'processed' }).send();
    expect(next > landed).toBe(true);
    slot();
    const b = await w.rpc.getBlock(next, { commitment: 'confirmed', transactionDetails: 'none', rewards: false }).send();
    expect(b!.parentSlot < landed).toBe(true);
    // Not an ancestor of the confirmed bank: "not available" (agave) until finalized, then skipped.
    await expect(w.rpc.getBlock(landed, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }).send()).rejects.toThrow(
      /Block not available/,
    );
    w.standIn.control.produceSlots(33);
    await expect(w.rpc.getBlock(landed, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }).send()).rejects.toThrow(/skipped/);
  });

  it('never drops a finalized block', () => {
    const { finalizedSlot, slot: tip } = w.standIn.control.status();
    expect(() => w.standIn.control.dropSlots(33)).toThrow(/unfinalized/);
    expect(w.standIn.control.status()).toMatchObject({ finalizedSlot, slot: tip });
  });
});

describe('persistence', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('keeps accounts, blocks, transactions and slot counters across a restart', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sol-standin-'));
    dirs.push(dir);
    const first = await startWorld({ dir });
    const alice = await fundedSigner(first, 3_000_000_000n);
    first.standIn.control.produceSlots();
    const bob = await generateKeyPairSigner();
    const sig = await send(first.rpc, alice, [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 42_000_000n })]);
    first.standIn.control.produceSlots(3);
    await first.standIn.control.mintTo('USDC', bob.address, 9_000_000n); // pending at stop
    const before = first.standIn.control.status();
    const mint = first.usdc;
    await first.standIn.stop();

    const second = await startWorld({ dir });
    try {
      expect(second.usdc).toBe(mint);
      expect(second.standIn.control.status()).toEqual(before);
      expect((await second.rpc.getBalance(bob.address, { commitment: 'confirmed' }).send()).value).toBe(42_000_000n);
      const tx = await second.rpc
        .getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send();
      expect(tx?.meta?.postBalances[1]).toBe(42_000_000n);
      second.standIn.control.produceSlots(2);
      const bobAta = await ata(bob.address, mint);
      expect((await second.rpc.getTokenAccountBalance(bobAta, { commitment: 'confirmed' }).send()).value.amount).toBe('9000000');
      // A fork drop still works on blocks from before the restart.
      expect(second.standIn.control.dropSlots(5).signatures).toContain(sig);
    } finally {
      await second.standIn.stop();
    }
  });
});

describe('slot timer', () => {
  it('produces blocks on its own every slotMs, and pauses', async () => {
    const timed = await startWorld({ slotMs: 20 });
    try {
      const start = await timed.rpc.getSlot({ commitment: 'processed' }).send();
      await new Promise((r) => setTimeout(r, 300));
      expect((await timed.rpc.getSlot({ commitment: 'processed' }).send()) > start + 2n).toBe(true);
      timed.standIn.control.pause();
      const paused = await timed.rpc.getSlot({ commitment: 'processed' }).send();
      await new Promise((r) => setTimeout(r, 100));
      expect(await timed.rpc.getSlot({ commitment: 'processed' }).send()).toBe(paused);
    } finally {
      await timed.standIn.stop();
    }
  });
});
