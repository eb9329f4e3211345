/**
 * The Solana family's read side (chains/solana: balances.ts, scan.ts) against the validator
 * stand-in (src/devnet/solana, litesvm: the real runtime and SPL Token program): balances in
 * one getMultipleAccounts, deposits found from a block's balances (an ATA the sender creates in
 * the same transaction, SOL, a failed transaction skipped), skipped slots linked by hashes, a
 * dropped fork read differently, and a constant number of node calls per block whatever the
 * number of watched owners.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { ata, build, fundedSigner, send, startWorld, type World } from '../../../src/devnet/solana/test-support.js';
import { SolanaNode } from '../../../src/chains/solana/rpc.js';
import { associatedTokenAccount, SolanaBalances, TOKEN_PROGRAM } from '../../../src/chains/solana/balances.js';
import { blockRef, scanSlots, transfersOfSignature } from '../../../src/chains/solana/scan.js';

let w: World;
let node: SolanaNode;
let calls: string[];

beforeAll(async () => {
  w = await startWorld();
  // Counts the node calls a read makes, by method, through the real HTTP endpoint.
  calls = [];
  const real = globalThis.fetch;
  const url = w.standIn.url;
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    if (String(input).startsWith(url) && typeof init?.body === 'string') {
      const body = JSON.parse(init.body) as { method?: string } | { method?: string }[];
      for (const m of Array.isArray(body) ? body : [body]) if (m.method) calls.push(m.method);
    }
    return real(input, init);
  }) as typeof fetch;
  node = new SolanaNode(url);
});
afterAll(async () => {
  await w?.standIn.stop();
});

const slots = (n = 1) => w.standIn.control.produceSlots(n);
const confirmedSlot = async () => (await w.rpc.getSlot({ commitment: 'confirmed' }).send()) as bigint;

/** Sends `amount` of USDC from the faucet-funded `payer` (holding USDC) to `to`, creating `to`'s ATA in the same transaction. */
async function payUsdc(payer: Awaited<ReturnType<typeof fundedSigner>>, to: Address, amount: bigint) {
  const source = await ata(payer.address, w.usdc);
  const destination = await ata(to, w.usdc);
  return send(w.rpc, payer, [
    getCreateAssociatedTokenIdempotentInstruction({
      payer,
      ata: destination,
      owner: to,
      mint: w.usdc,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    }),
    getTransferCheckedInstruction({ source, mint: w.usdc, destination, authority: payer, amount, decimals: 6 }),
  ]);
}

describe('balances', () => {
  it('reads SOL and USDC of several owners in one getMultipleAccounts; an absent account holds 0', async () => {
    const alice = await fundedSigner(w, 3_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, alice.address, 5_000_000n);
    const bob = await generateKeyPairSigner();
    slots(2);
    const balances = new SolanaBalances(node);
    expect((await balances.mintsOf([w.usdc])).get(w.usdc)).toEqual({ program: TOKEN_PROGRAM, decimals: 6 }); // once per process
    calls.length = 0;
    const got = await balances.getBalances([
      { owner: alice.address, token: null },
      { owner: alice.address, token: w.usdc },
      { owner: bob.address, token: w.usdc },
      { owner: bob.address, token: null },
    ]);
    expect(got).toEqual([3_000_000_000n, 5_000_000n, 0n, 0n]);
    expect(calls).toEqual(['getMultipleAccounts']);
    expect(await associatedTokenAccount(alice.address, w.usdc, TOKEN_PROGRAM)).toBe(await ata(alice.address, w.usdc));
  });

  it('refuses a token that is no mint', async () => {
    const alice = await fundedSigner(w, 1_000_000_000n);
    slots(2);
    await expect(new SolanaBalances(node).getBalances([{ owner: alice.address, token: alice.address }])).rejects.toThrow(
      /not an SPL token mint/,
    );
  });
});

describe('scan', () => {
  it('finds USDC into an ATA the sender created, and SOL, to watched owners only; skips a failed transaction', async () => {
    const payer = await fundedSigner(w, 5_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, payer.address, 9_000_000n);
    const watched = await generateKeyPairSigner();
    const other = await generateKeyPairSigner();
    slots(2);
    const from = (await confirmedSlot()) + 1n;
    const usdcSig = await payUsdc(payer, watched.address, 1_250_000n);
    await payUsdc(payer, other.address, 7n);
    // Fails in execution (more than the payer holds), lands with its error and pays its fee: moves nothing.
    const failed = await build(w.rpc, payer, [
      getTransferCheckedInstruction({
        source: await ata(payer.address, w.usdc),
        mint: w.usdc,
        destination: await ata(watched.address, w.usdc),
        authority: payer,
        amount: 10_000_000_000n,
        decimals: 6,
      }),
    ]);
    await w.rpc.sendTransaction(failed.wire, { encoding: 'base64', skipPreflight: true }).send();
    const solSig = await send(w.rpc, payer, [
      getTransferSolInstruction({ source: payer, destination: watched.address, amount: 1_000_000_000n }),
    ]);
    slots(3);
    const to = await confirmedSlot();
    const isWatched = (a: string) => a === watched.address;
    const scan = await scanSlots(node, from, to, [w.usdc], isWatched);
    expect(scan.blocks.map((b) => b.number)).toEqual(Array.from({ length: Number(to - from) + 1 }, (_, i) => from + BigInt(i)));
    expect(scan.transfers.map((t) => [t.txHash, t.token, t.from, t.to, t.amount])).toEqual([
      [usdcSig, w.usdc, payer.address, watched.address, 1_250_000n],
      [solSig, null, payer.address, watched.address, 1_000_000_000n],
    ]);
    const landed = await w.rpc
      .getTransaction(failed.signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(landed?.meta?.err).not.toBeNull();
    expect(scan.transfers[0]!.logIndex).toBeGreaterThanOrEqual(0);
    expect(scan.transfers[1]!.logIndex).toBeLessThan(0);
    const block = scan.blocks.find((b) => b.number === scan.transfers[0]!.block.number)!;
    expect(scan.transfers[0]!.block.hash).toBe(block.hash);
    // The deposit finder: the same transfer from its signature.
    expect(await transfersOfSignature(node, usdcSig, [w.usdc], isWatched)).toEqual([scan.transfers[0]]);
    expect(await transfersOfSignature(node, usdcSig, [w.usdc], () => false)).toEqual([]);
  });

  it('reads a skipped slot as the block before it: parents link across the gap', async () => {
    slots(1);
    w.standIn.control.skipSlots(3);
    slots(3);
    const to = await confirmedSlot();
    const from = to - 6n;
    const scan = await scanSlots(node, from, to, [w.usdc], () => true);
    expect(scan.blocks).toHaveLength(7);
    for (let i = 1; i < scan.blocks.length; i++) expect(scan.blocks[i]!.parentHash).toBe(scan.blocks[i - 1]!.hash);
    const skipped = scan.blocks.filter((b) => b.hash === b.parentHash);
    expect(skipped.length).toBe(3);
    for (const b of scan.blocks) expect(await blockRef(node, b.number)).toEqual(b);
    // Above the confirmed slot there is nothing yet.
    expect(await blockRef(node, to + 50n)).toBeNull();
  });

  it('a block dropped with its fork reads differently than when it was read', async () => {
    slots(4);
    const at = (await confirmedSlot()) - 1n;
    const before = await blockRef(node, at);
    w.standIn.control.dropSlots(3);
    slots(4);
    const after = await blockRef(node, at);
    expect(after).not.toBeNull();
    expect(after!.hash).not.toBe(before!.hash);
  });

  it('costs one getBlocks and one getBlock per block whatever the number of watched owners', async () => {
    const payer = await fundedSigner(w, 5_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, payer.address, 9_000_000n);
    slots(2);
    const many = new Set<string>();
    for (let i = 0; i < 200; i++) many.add((await generateKeyPairSigner()).address);
    const target = [...many][17]! as Address;
    const from = (await confirmedSlot()) + 1n;
    await payUsdc(payer, target, 42n);
    slots(4);
    const to = await confirmedSlot();
    const count = async (watched: (a: string) => boolean) => {
      calls.length = 0;
      const scan = await scanSlots(node, from, to, [w.usdc], watched);
      return { calls: [...calls], found: scan.transfers.length };
    };
    const one = await count((a) => a === target);
    const all = await count((a) => many.has(a));
    expect(one.found).toBe(1);
    expect(all.found).toBe(1);
    expect(all.calls).toEqual(one.calls);
    expect(one.calls.filter((m) => m === 'getBlocks')).toHaveLength(1);
    expect(one.calls.filter((m) => m === 'getBlock')).toHaveLength(Number(to - from) + 1);
  });
});
