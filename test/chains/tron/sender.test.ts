// TronSender (src/chains/tron/sender.ts) against the Tron node stand-in: quote, prepare
// (built by the node, checked before signing), sign, broadcast with /wallet/broadcasthex,
// and what the chain then says. Here rather than beside sender.ts: src/chains must not
// import src/devnet (a folder cycle through devnet's dashboard seeding).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { secp256k1 } from '@noble/curves/secp256k1';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { encodeFunctionData, erc20Abi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { balance, fundedWallet, info, newWallet, startForTest, tokenBalance, type Wallet } from '../../../src/devnet/tron/testkit.js';
import { ChainRejectedError } from '../../../src/chains/errors.js';
import type { CallIntent, NativeIntent, SigningKey } from '../../../src/chains/types.js';
import { tronEvmHex } from '../../../src/chains/tron/codec.js';
import { TronNode } from '../../../src/chains/tron/node.js';
import { TronSender } from '../../../src/chains/tron/sender.js';
import { tronFees } from '../../../src/chains/tron/receipt.js';
import { callOf, encodeRaw, readHeader, tronIntentOf } from '../../../src/chains/tron/tx.js';
import { startBalancer } from '../../support/balancer.js';

let s: TronStandIn;
let node: TronNode;
let sender: TronSender;
beforeAll(async () => {
  s = await startForTest();
  node = new TronNode(s.url);
  sender = new TronSender(node);
});
afterAll(async () => {
  await s?.stop();
});

/** The signer's lent key, over a wallet's private key; counts its signatures. */
function keyOf(w: Wallet): SigningKey & { signed: number } {
  const key = {
    signed: 0,
    signDigest(digest: Uint8Array) {
      key.signed++;
      const sig = secp256k1.sign(digest, hexToBytes(w.privateKey));
      return { r: sig.r, s: sig.s, recovery: sig.recovery };
    },
  };
  return key;
}

const LEGACY_ASSERT_ABI = [
  { type: 'function', name: 'setLegacyAssert', inputs: [{ name: 'on', type: 'bool' }], outputs: [], stateMutability: 'nonpayable' },
] as const;
const broadcast = (raw: string) => node.post<Record<string, unknown>>('wallet/broadcasthex', { transaction: raw });
const tokenTransfer = (to: string, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [tronEvmHex(to)!, amount] });

describe('TronSender: TRX transfers', () => {
  it('sends TRX to a new account: activation quoted, the txID the node knows, balances exact', async () => {
    const a = await fundedWallet(s, 50_000_000);
    const b = newWallet();
    const intent: NativeIntent = { kind: 'native', from: a.address, to: b.address, amount: 3_000_000n };
    const quote = await sender.quote(intent);
    expect(quote.network.activation).toBe('1100000');
    expect(quote.fixed).toEqual({});
    const network = await sender.prepare(intent, quote.fixed);
    expect(network.feeLimit).toBeUndefined();
    const signed = sender.sign(intent, null, network, keyOf(a));
    expect(signed.hash).toBe(network.txID);
    const before = BigInt(await balance(s, a.hex));
    const res = await broadcast(signed.raw);
    expect(res.result).toBe(true);
    expect(res.txid).toBe(signed.hash);
    await s.control.produceBlocks(1);
    const txInfo = await info(s, signed.hash);
    const fee = BigInt(txInfo.fee ?? 0);
    expect(fee).toBe(1_100_000n); // 1 TRX creation fee + 0.1 TRX for the bytes
    expect(BigInt(await balance(s, a.hex))).toBe(before - 3_000_000n - fee);
    expect(BigInt(await balance(s, b.hex))).toBe(3_000_000n);
    expect(quote.fee).toBeGreaterThanOrEqual(fee);
    expect(sender.costOf(intent.amount, network)).toBe(intent.amount + BigInt(network.fee!));

    // findLanded: the landed version among several hashes, with what it cost.
    const other = bytesToHex(new Uint8Array(32).fill(9));
    const landed = await sender.findLanded([other, signed.hash]);
    expect(landed?.index).toBe(1);
    expect(landed?.receipt).toMatchObject({
      status: 'success',
      block: { number: BigInt(txInfo.blockNumber) },
      fee,
    });
    expect(await sender.findLanded([other])).toBeNull();
  });

  it('refuses to sign a transaction other than the intent, before any signature', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const intent: NativeIntent = { kind: 'native', from: a.address, to: newWallet().address, amount: 1_000n };
    const network = await sender.prepare(intent, {});
    const header = readHeader(hexToBytes(network.rawDataHex!));
    const key = keyOf(a);
    for (const other of [
      { ...intent, amount: 1_000_000n },
      { ...intent, to: newWallet().address },
    ]) {
      const tampered = bytesToHex(encodeRaw(callOf(tronIntentOf(other), 0n), header));
      expect(() => sender.sign(intent, null, { ...network, rawDataHex: tampered }, key)).toThrow(/not the one asked for/);
    }
    // Stored data that lies about the deadline is refused too.
    expect(() => sender.sign(intent, null, { ...network, expiration: '1' }, key)).toThrow(/expiration/);
    expect(key.signed).toBe(0);
  });

  it('refuses what a node built with another amount (a node in the middle)', async () => {
    // A "node" that forwards to the stand-in, but asks it for 1 TRX more than we asked for.
    const proxy: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        const json = JSON.parse(body || '{}');
        if (req.url?.endsWith('createtransaction')) json.amount += 1_000_000;
        const answer = await fetch(`${s.url}${req.url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(json),
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const evil = new TronSender(new TronNode(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`));
      const a = await fundedWallet(s, 10_000_000);
      const intent: NativeIntent = { kind: 'native', from: a.address, to: newWallet().address, amount: 1_000n };
      await expect(evil.prepare(intent, {})).rejects.toThrow(/built another transaction than asked/);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('TronSender: TRC-20 transfers', () => {
  it('quotes energy with the margin as the fee limit, sends, and the tokens move exactly', async () => {
    const token = s.tokens[0]!.address;
    const a = await fundedWallet(s, 20_000_000, { USDT: 5_000_000n });
    const b = newWallet();
    const intent: CallIntent = { kind: 'call', from: a.address, to: token, value: 0n, data: tokenTransfer(b.address, 1_234_567n) };
    const quote = await sender.quote(intent);
    const energy = BigInt(quote.network.energy!);
    expect(energy).toBeGreaterThan(20_000n); // a zero-to-nonzero balance write
    const feeLimit = (energy * 100n * 120n + 99n) / 100n;
    expect(quote.fixed).toEqual({ feeLimit: feeLimit.toString() });
    expect(quote.limit).toEqual({ estimate: energy * 100n, limit: feeLimit });
    expect(quote.fee).toBe(feeLimit + BigInt(quote.network.bandwidth!) * 1000n);

    const network = await sender.prepare(intent, quote.fixed);
    expect(network.feeLimit).toBe(feeLimit.toString());
    const signed = sender.sign(intent, null, network, keyOf(a));
    const before = BigInt(await balance(s, a.hex));
    const res = await broadcast(signed.raw);
    expect(res.result).toBe(true);
    expect(res.txid).toBe(signed.hash);
    await s.control.produceBlocks(1);
    const txInfo = await info(s, signed.hash);
    const fee = BigInt(txInfo.fee ?? 0);
    // No staked energy: all of it burned. The quote's energy is what the call needs as its
    // limit (/wallet/estimateenergy), at least what it uses.
    const used = BigInt(txInfo.receipt.energy_usage_total);
    expect(BigInt(txInfo.receipt.energy_fee)).toBe(used * 100n);
    expect(energy).toBeGreaterThanOrEqual(used);
    expect(quote.fee).toBeGreaterThanOrEqual(fee);
    expect(BigInt(await balance(s, a.hex))).toBe(before - fee);
    expect(await tokenBalance(s, token, b.address)).toBe(1_234_567n);
    expect(await tokenBalance(s, token, a.address)).toBe(5_000_000n - 1_234_567n);
    expect((await sender.findLanded([signed.hash]))?.receipt.status).toBe('success');
  });

  it('a call out of energy under its fee limit lands reverted, the limit burned', async () => {
    const token = s.tokens[0]!.address;
    const a = await fundedWallet(s, 20_000_000, { USDT: 10n });
    const intent: CallIntent = { kind: 'call', from: a.address, to: token, value: 0n, data: tokenTransfer(newWallet().address, 1n) };
    const network = await sender.prepare(intent, sender.fixedNetwork({ limit: 100_000n })); // 1,000 energy
    const signed = sender.sign(intent, null, network, keyOf(a));
    expect((await broadcast(signed.raw)).result).toBe(true);
    await s.control.produceBlocks(1);
    const txInfo = await info(s, signed.hash);
    const landed = await sender.findLanded([signed.hash]);
    expect(landed?.receipt.status).toBe('reverted');
    expect(landed?.receipt.fee).toBe(BigInt(txInfo.fee));
    expect(BigInt(txInfo.fee)).toBeGreaterThanOrEqual(100_000n);
    expect(sender.costOf(0n, network)).toBeGreaterThanOrEqual(BigInt(txInfo.fee));
  });

  it('a call that would revert is ChainRejectedError(reverted); TRX with a call is refused', async () => {
    const token = s.tokens[0]!.address;
    const a = await fundedWallet(s, 20_000_000);
    const intent: CallIntent = { kind: 'call', from: a.address, to: token, value: 0n, data: tokenTransfer(newWallet().address, 1n) };
    const err = await sender.quote(intent).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainRejectedError);
    expect((err as ChainRejectedError).reason).toBe('reverted');
    await expect(sender.quote({ ...intent, value: 1n })).rejects.toThrow(/sends no TRX/);
  });

  it('a transfer beyond the balance of a token checked by assert (Tron USDT) is reverted, not refused, with or without estimateenergy', async () => {
    const token = s.tokens[0]!.address;
    const legacy = (on: boolean) =>
      s.control.faucetCall(token, encodeFunctionData({ abi: LEGACY_ASSERT_ABI, functionName: 'setLegacyAssert', args: [on] }));
    await legacy(true);
    await s.control.produceBlocks(1);
    // A node with vm.estimateEnergy off answers estimateenergy with a validation error.
    const balancer = await startBalancer(s.url, (path) =>
      path.endsWith('/estimateenergy')
        ? {
            result: { code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from('this node does not support estimate energy').toString('hex') },
          }
        : undefined,
    );
    try {
      const a = await fundedWallet(s, 20_000_000, { USDT: 5n });
      const intent: CallIntent = {
        kind: 'call',
        from: a.address,
        to: token,
        value: 0n,
        data: tokenTransfer(newWallet().address, 6_000_000n),
      };
      // The invalid opcode, as java-tron prints it: a VM exception, on every run.
      const constant = await node.post<{ result: { code: string; message: string } }>('wallet/triggerconstantcontract', {
        owner_address: a.hex,
        contract_address: s.tokens[0]!.hex,
        data: intent.data.slice(2),
      });
      expect(constant.result.code).toBe('OTHER_ERROR');
      expect(Buffer.from(constant.result.message, 'hex').toString()).toMatch(/Program\$IllegalOperationException : Invalid operation code/);
      for (const asked of [sender, new TronSender(new TronNode(balancer.url))]) {
        const err = await asked.quote(intent).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ChainRejectedError);
        expect((err as ChainRejectedError).reason).toBe('reverted');
      }
    } finally {
      await balancer.close();
      await legacy(false);
      await s.control.produceBlocks(1);
    }
  });

  it('caps the fee limit at feeLimitSun, and refuses a call whose energy alone costs more', async () => {
    const token = s.tokens[0]!.address;
    const a = await fundedWallet(s, 20_000_000, { USDT: 10n });
    const intent: CallIntent = { kind: 'call', from: a.address, to: token, value: 0n, data: tokenTransfer(newWallet().address, 1n) };
    const energy = BigInt((await sender.quote(intent)).network.energy!);
    const capped = await new TronSender(node, { feeLimitSun: energy * 100n + 1n }).quote(intent);
    expect(capped.fixed.feeLimit).toBe((energy * 100n + 1n).toString());
    const low = new TronSender(node, { feeLimitSun: energy * 100n - 1n });
    const err = await low.quote(intent).catch((e: unknown) => e);
    expect((err as ChainRejectedError).reason).toBe('refused');
    // The cap binds a client's fee limit (the API's gasLimit) too.
    expect(() => low.fixedNetwork({ limit: energy * 100n })).toThrow(/gasLimit/);
  });

  it('requote sets another fee limit without asking the node; fixedNetwork refuses fee caps', async () => {
    const token = s.tokens[0]!.address;
    const a = await fundedWallet(s, 20_000_000, { USDT: 10n });
    const quote = await sender.quote({ kind: 'call', from: a.address, to: token, value: 0n, data: tokenTransfer(newWallet().address, 1n) });
    const again = sender.requote(quote, sender.fixedNetwork({ limit: 300_000_000n }));
    expect(again.fixed.feeLimit).toBe('300000000');
    // 300,000,000 (over 2^28) takes one varint byte more than a few million: one byte more of bandwidth.
    expect(BigInt(again.network.bandwidth!)).toBe(BigInt(quote.network.bandwidth!) + 1n);
    expect(again.fee).toBe(300_000_000n + BigInt(again.network.bandwidth!) * 1000n);
    expect(() => sender.fixedNetwork({ feeCap: 1n })).toThrow(/gasPrice/);
    expect(() => sender.fixedNetwork({ limit: 0n })).toThrow(/gasLimit/);
    expect(tronFees.ofNetwork(quote.network)).toEqual({ gasLimit: null, maxFeePerGas: null, maxPriorityFeePerGas: null });
    expect(sender.childFeeFunding({ nativeBalance: 1n, value: 0n, network: quote.network })).toEqual({
      kind: 'transfer',
      amount: quote.fee - 1n,
    });
    expect(sender.childFeeFunding({ nativeBalance: quote.fee, value: 0n, network: quote.network })).toEqual({ kind: 'none' });
    // No nonce, no replacement, no slot to void: the 'expiry' ordering has none of them (ExpirySender).
    expect(sender.ordering).toBe('expiry');
    expect(['nonceOf', 'replacementNetwork', 'voidCall'].filter((m) => m in sender)).toEqual([]);
  });
});

describe('TronSender: expiry', () => {
  it('is not expired at once; expired once the solidified head passes the expiration', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const b = newWallet();
    const intent: NativeIntent = { kind: 'native', from: a.address, to: b.address, amount: 1_000n };
    const first = await sender.prepare(intent, {});
    expect(await sender.hasExpired(first, first.txID!)).toBe(false);
    // prepare always builds afresh: another reference block or deadline, another txID.
    await s.control.produceBlocks(1);
    const second = await sender.prepare(intent, first);
    expect(second.txID).not.toBe(first.txID);

    await s.control.advanceTime(61_000);
    await s.control.produceBlocks(1);
    // The head is past the deadline, the solidified head not yet: a fork could still take it.
    expect(await sender.hasExpired(first, first.txID!)).toBe(false);
    await s.control.solidify();
    expect(await sender.hasExpired(first, first.txID!)).toBe(true);
    // The stand-in agrees: those bytes can no longer be included.
    const res = await broadcast(sender.sign(intent, null, first, keyOf(a)).raw);
    expect(res.code).toBe('TRANSACTION_EXPIRATION_ERROR');
    expect(BigInt(await balance(s, b.hex))).toBe(0n);
  });

  it('a transaction packed in the block whose time is its expiration landed: never concluded expired (no second payment)', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const b = newWallet();
    // Blocks ahead of the wall clock: from here each block's time is its parent's + 3 s, or the moved clock's floor.
    await s.control.produceBlocks(6);
    const intent: NativeIntent = { kind: 'native', from: a.address, to: b.address, amount: 1_000n };
    const network = await sender.prepare(intent, {});
    const expiration = Number(network.expiration);
    const signed = sender.sign(intent, null, network, keyOf(a));
    const head = await node.post<{ block_header: { raw_data: { timestamp: number } } }>('wallet/getnowblock');
    // The last block before the deadline, then the payment, valid while its parent's time is before
    // the expiration (java-tron's validateCommon reads the parent's), in the block at the expiration.
    await s.control.advanceTime(expiration - 3_000 - head.block_header.raw_data.timestamp);
    await s.control.produceBlocks(1);
    expect((await broadcast(signed.raw)).result).toBe(true);
    await s.control.produceBlocks(1);
    const landed = await info(s, signed.hash);
    expect(Number(landed.blockTimeStamp)).toBe(expiration);
    await s.control.solidify();
    expect(BigInt(await balance(s, b.hex))).toBe(1_000n);
    // Landed: not expired (were it, a receipt lookup on a lagging backend would rebuild it and pay twice).
    expect(await sender.hasExpired(network, signed.hash)).toBe(false);
  });

  it('an expired transaction is never concluded unlanded from a lagging node: every block up to its expiration must come back', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const b = newWallet();
    // A balancer's second backend, frozen at the head reached now: it has none of the blocks
    // after it (getblockbynum answers {} and getblockbylimitnext leaves them out, as java-tron
    // does past its head) and no info on the payment below.
    const head = await node.post<{ block_header: { raw_data: { number: number } } }>('wallet/getnowblock');
    const frozenAt = head.block_header.raw_data.number;
    const balancer = await startBalancer(s.url, async (path, body) => {
      if (path.endsWith('/gettransactioninfobyid')) return {};
      if (path.endsWith('/getblockbynum')) return Number(body.num) > frozenAt ? {} : undefined;
      if (!path.endsWith('/getblockbylimitnext')) return undefined;
      const all = await node.post<{ block?: { block_header: { raw_data: { number: number } } }[] }>(path.slice(1), body);
      return { block: (all.block ?? []).filter((blk) => blk.block_header.raw_data.number <= frozenAt) };
    });
    try {
      const intent: NativeIntent = { kind: 'native', from: a.address, to: b.address, amount: 1_000n };
      const network = await sender.prepare(intent, {});
      const signed = sender.sign(intent, null, network, keyOf(a));
      expect((await broadcast(signed.raw)).result).toBe(true);
      await s.control.produceBlocks(1);
      await s.control.advanceTime(61_000);
      await s.control.produceBlocks(1);
      await s.control.solidify();
      const balanced = new TronSender(new TronNode(balancer.url));
      // Alone, the lagging backend's answer reads "not landed": the pipeline would rebuild and pay twice.
      expect(await balanced.findLanded([signed.hash])).toBeNull();
      await expect(balanced.hasExpired(network, signed.hash)).rejects.toMatchObject({ code: 'CHAIN_UNAVAILABLE', retryable: true });
      // The node that has the blocks finds it in one: not expired, landed, paid once.
      expect(await sender.hasExpired(network, signed.hash)).toBe(false);
      expect((await sender.findLanded([signed.hash]))?.receipt.status).toBe('success');
      expect(BigInt(await balance(s, b.hex))).toBe(1_000n);
    } finally {
      await balancer.close();
    }
  });

  it('a lagging backend whose head is on another fork never proves a landed payment unlanded (walletsolidity/getblockbylimitnext reads past the solidified head)', async () => {
    const a = await fundedWallet(s, 10_000_000);
    const b = newWallet();
    type Json = { blockID: string; block_header: { raw_data: { number: number; parentHash: string } }; transactions?: { txID: string }[] };
    const head = await node.post<Json>('wallet/getnowblock');
    const frozenAt = head.block_header.raw_data.number;
    const intent: NativeIntent = { kind: 'native', from: a.address, to: b.address, amount: 1_000n };
    const network = await sender.prepare(intent, {});
    const signed = sender.sign(intent, null, network, keyOf(a));
    // A second backend whose solidified head stayed at `frozenAt` and whose head went on along
    // another fork, without the payment. java-tron serves walletsolidity/getblockbylimitnext
    // from the block store's snapshots whatever the cursor (Chainbase.getValuesNext collects
    // every snapshot, SnapshotImpl.collect walks root to newest), so that backend returns its
    // unsolidified fork blocks for numbers past its solidified head; getblockbynum, read
    // through the solidity cursor, is answered by the node here.
    const forkId = (id: string) => id.slice(0, 16) + 'f'.repeat(48);
    const balancer = await startBalancer(s.url, async (path, body) => {
      if (path.endsWith('/gettransactioninfobyid')) return {};
      if (!path.endsWith('/getblockbylimitnext')) return undefined;
      const all = await node.post<{ block?: Json[] }>(`wallet/getblockbylimitnext`, body);
      return {
        block: (all.block ?? []).map((blk) => {
          const n = blk.block_header.raw_data.number;
          if (n <= frozenAt) return blk;
          const parent = blk.block_header.raw_data.parentHash;
          return {
            ...blk,
            blockID: forkId(blk.blockID),
            block_header: {
              ...blk.block_header,
              raw_data: { ...blk.block_header.raw_data, parentHash: n - 1 > frozenAt ? forkId(parent) : parent },
            },
            transactions: (blk.transactions ?? []).filter((t) => t.txID !== signed.hash),
          };
        }),
      };
    });
    try {
      expect((await broadcast(signed.raw)).result).toBe(true);
      await s.control.produceBlocks(1);
      await s.control.advanceTime(61_000);
      await s.control.produceBlocks(1);
      await s.control.solidify();
      expect((await sender.findLanded([signed.hash]))?.receipt.status).toBe('success');
      const balanced = new TronSender(new TronNode(balancer.url));
      // Landed on the solidified chain: "expired, not landed" would rebuild it and pay twice.
      const answer = await balanced.hasExpired(network, signed.hash).catch((err: unknown) => err);
      expect(answer).not.toBe(true);
      expect(answer).toMatchObject({ code: 'CHAIN_UNAVAILABLE', retryable: true });
      expect(await sender.hasExpired(network, signed.hash)).toBe(false);
      expect(BigInt(await balance(s, b.hex))).toBe(1_000n);
    } finally {
      await balancer.close();
    }
  });
});
