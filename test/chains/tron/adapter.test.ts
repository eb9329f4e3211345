// The Tron adapter's read side against a real node stand-in (src/devnet/tron): balances,
// blocks, deposits by block and by txID, receipts, broadcast refusals, token calldata.
// It lives in test/, not beside the adapter: a test in src/chains importing src/devnet makes a
// folder cycle for lint:deps.
import { secp256k1 } from '@noble/curves/secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../../src/config/index.js';
import { BusinessRuleError } from '../../../src/lib/errors.js';
import { capability } from '../../../src/chains/capabilities.js';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, info, newWallet, post, sendToken, startForTest, tronWeb, type Wallet } from '../../../src/devnet/tron/testkit.js';
import { ChainRejectedError } from '../../../src/chains/errors.js';
import { TronAdapter } from '../../../src/chains/tron/adapter.js';
import { TronNode } from '../../../src/chains/tron/node.js';

/** The real client, counting the calls it makes (the count is what the scan promises). */
class CountingNode extends TronNode {
  calls: string[] = [];
  override post<T = Record<string, unknown>>(path: string, body?: Record<string, unknown>): Promise<T> {
    this.calls.push(path);
    return super.post<T>(path, body);
  }
}

function tronConfig(s: TronStandIn, multicall3: string | null): ChainConfig {
  return {
    blockchain: {
      slug: 'tron',
      name: 'Tron',
      symbol: 'TRX',
      nativeDecimals: 6,
      family: 'tron',
      derivationPath: "m/44'/195'/0'/0",
      tokenStandard: 'TRC20',
      isEvmCompatible: false,
      isL2: false,
      logoUrl: '',
    },
    network: 'testnet',
    chainId: 0,
    rpcUrl: s.url,
    confirmations: 19,
    startBlock: null,
    multicall3,
    assets: [],
  };
}

/** The protobuf of a signed Transaction: raw_data (field 1) and the signature (field 2). */
function signedHex(tx: { raw_data_hex: string; signature?: string[] }): string {
  const field = (tag: number, hex: string) => {
    let len = hex.length / 2;
    let varint = '';
    while (len >= 0x80) {
      varint += ((len & 0x7f) | 0x80).toString(16).padStart(2, '0');
      len >>= 7;
    }
    return tag.toString(16).padStart(2, '0') + varint + len.toString(16).padStart(2, '0') + hex;
  };
  return field(0x0a, tx.raw_data_hex) + (tx.signature ?? []).map((sig) => field(0x12, sig)).join('');
}

let s: TronStandIn;
let node: CountingNode;
let adapter: TronAdapter;
let usdt: string;
let usdc: string;
let payer: Wallet;

beforeAll(async () => {
  s = await startForTest();
  node = new CountingNode(s.url);
  adapter = new TronAdapter(tronConfig(s, null), node);
  usdt = s.tokens[0]!.address;
  usdc = s.tokens[1]!.address;
  payer = await fundedWallet(s, 200_000_000, { USDT: 50_000_000n });
}, 60_000);

afterAll(async () => {
  await s?.stop();
});

describe('TronAdapter balances', () => {
  it('reads TRX (getaccount; 0 for an inactive account) and TRC-20 balances, exactly, with and without Multicall3', async () => {
    const holder = await fundedWallet(s, 7_654_321, { USDT: 1_234_567n });
    const inactive = newWallet();
    const queries = [
      { owner: holder.address, token: null },
      { owner: inactive.address, token: null },
      { owner: holder.address, token: usdt },
      { owner: inactive.address, token: usdt },
      { owner: holder.hex, token: usdc }, // any spelling the codec accepts
      { owner: holder.address, token: null }, // asked twice, read once
    ];
    node.calls = [];
    expect(await adapter.getBalances(queries)).toEqual([7_654_321n, 0n, 1_234_567n, 0n, 0n, 7_654_321n]);
    // One getaccount per owner asked for TRX, one balanceOf per (owner, token).
    expect(node.calls.filter((c) => c === 'wallet/getaccount')).toHaveLength(2);
    expect(node.calls.filter((c) => c === 'wallet/triggerconstantcontract')).toHaveLength(3);

    // A TRC-20 transfer moves exactly its amount.
    const r = await sendToken(s, holder, usdt, inactive.address, 234_567n);
    expect(r.result).toBe(true);
    await s.control.produceBlocks(1);
    const after = await adapter.getBalances([
      { owner: holder.address, token: usdt },
      { owner: inactive.address, token: usdt },
      { owner: holder.address, token: null },
    ]);
    expect(after.slice(0, 2)).toEqual([1_000_000n, 234_567n]);
    const account = await post(s, 'wallet/getaccount', { address: holder.hex });
    expect(after[2]).toBe(BigInt(account.balance)); // the energy burned left the TRX

    // With Multicall3: the same answers in one node call.
    const viaMulticall = new TronAdapter(tronConfig(s, s.multicall.address), node);
    node.calls = [];
    expect(await viaMulticall.getBalances(queries)).toEqual([after[2], 0n, 1_000_000n, 234_567n, 0n, after[2]]);
    expect(node.calls).toEqual(['wallet/triggerconstantcontract']);
  });

  it('reads decimals() of a token; null for an address that is no contract', async () => {
    expect(await adapter.readTokenDecimals(usdt)).toBe(6);
    expect(await adapter.readTokenDecimals(newWallet().address)).toBeNull();
  });
});

describe('TronAdapter blocks', () => {
  it('reads the head, the solidified head (19 behind) and block references that chain', async () => {
    await s.control.produceBlocks(25);
    const head = await adapter.getBlockNumber();
    const nodeHead = await post(s, 'wallet/getnowblock');
    expect(head).toBe(BigInt(nodeHead.block_header.raw_data.number));
    expect(await adapter.getSolidifiedBlockNumber()).toBe(head - 19n);

    const a = await adapter.getBlock(head - 1n);
    const b = await adapter.getBlock(head);
    expect(b!.hash).toBe(nodeHead.blockID);
    expect(b!.parentHash).toBe(a!.hash);
    expect(b!.number).toBe(head);
    expect(b!.timestamp).toBe(Math.floor(nodeHead.block_header.raw_data.timestamp / 1000));
    expect(await adapter.getBlock(head + 100n)).toBeNull();
    // The genesis block: proto3 leaves its zero number out of the JSON.
    expect(await adapter.getBlock(0n)).toMatchObject({ number: 0n, hash: (await post(s, 'wallet/getblockbynum', { num: 0 })).blockID });
  });
});

describe('TronAdapter deposits', () => {
  it('finds TRX and TRC-20 transfers to watched addresses only, exactly, with two node calls per block', async () => {
    const watched = newWallet();
    const other = newWallet();
    const tw = tronWeb(s);
    const trx = async (to: string, sun: number) => {
      const tx = await tw.transactionBuilder.sendTrx(to, sun, payer.address);
      const res = await tw.trx.sendRawTransaction(await tw.trx.sign(tx, payer.privateKey));
      expect(res.result).toBe(true);
      return tx.txID as string;
    };
    const trxTo = await trx(watched.address, 3_000_001);
    await trx(other.address, 4_000_000);
    const tokenTo = (await sendToken(s, payer, usdt, watched.address, 1_500_002n)).txid as string;
    await sendToken(s, payer, usdt, other.address, 9_000_000n);
    // A TRC-20 transfer that reverts (more than the payer holds) moves nothing.
    await sendToken(s, payer, usdt, watched.address, 10n ** 18n);
    const [mined] = await s.control.produceBlocks(1);
    const n = BigInt(mined!.number);
    await s.control.produceBlocks(2);

    const isWatched = (a: string) => a === watched.address;
    node.calls = [];
    const scan = await adapter.scan(n - 1n, n + 1n, [usdt, usdc], isWatched);
    const callsOne = node.calls.length;
    expect(scan.blocks.map((b) => b.number)).toEqual([n - 1n, n, n + 1n]);
    expect(scan.blocks[1]!.parentHash).toBe(scan.blocks[0]!.hash);
    const block = scan.blocks[1]!;
    expect(scan.transfers).toEqual([
      {
        token: null,
        from: payer.address,
        to: watched.address,
        amount: 3_000_001n,
        txHash: trxTo,
        logIndex: -1,
        block: { number: n, hash: block.hash },
      },
      {
        token: usdt,
        from: payer.address,
        to: watched.address,
        amount: 1_500_002n,
        txHash: tokenTo,
        logIndex: 0,
        block: { number: n, hash: block.hash },
      },
    ]);

    // A thousand watched addresses cost the same calls: two per block.
    const many = new Set([watched.address, ...Array.from({ length: 999 }, () => newWallet().address)]);
    node.calls = [];
    const scanMany = await adapter.scan(n - 1n, n + 1n, [usdt, usdc], (a) => many.has(a));
    expect(node.calls.length).toBe(callsOne);
    expect(callsOne).toBe(2 * 3);
    expect(scanMany.transfers).toEqual(scan.transfers);

    // Every transfer when everything is watched; without tokens only TRX.
    const all = await adapter.scan(n, n, [usdt], () => true);
    expect(all.transfers.map((t) => [t.token, t.to, t.amount])).toEqual([
      [null, watched.address, 3_000_001n],
      [null, other.address, 4_000_000n],
      [usdt, watched.address, 1_500_002n],
      [usdt, other.address, 9_000_000n],
    ]);
    expect((await adapter.scan(n, n, [], () => true)).transfers.every((t) => t.token === null)).toBe(true);

    // The deposit finder, by txID (with or without 0x).
    expect(await adapter.transfersOfTransaction(tokenTo, [usdt], isWatched)).toEqual([scan.transfers[1]]);
    expect(await adapter.transfersOfTransaction(`0x${trxTo}`, [usdt], isWatched)).toEqual([scan.transfers[0]]);
    expect(await adapter.transfersOfTransaction(tokenTo, [usdt], () => false)).toEqual([]);
    expect(await adapter.transfersOfTransaction('ab'.repeat(32), [usdt], isWatched)).toEqual([]);
  });
});

describe('TronAdapter receipts and broadcast', () => {
  it('reads the receipt of a mined transaction (its fee in sun, energy, bandwidth), of a failed one, and null for an unknown txID', async () => {
    const to = newWallet().address;
    const ok = (await sendToken(s, payer, usdt, to, 1n)).txid as string;
    // Fee limit under the call's energy (~30,000 energy at 100 sun): OUT_OF_ENERGY, fee kept.
    const starved = (await sendToken(s, payer, usdt, to, 1n, 1_000_000)).txid as string;
    expect(await adapter.getReceipt(ok)).toBeNull(); // pending: not in a block yet
    const [mined] = await s.control.produceBlocks(1);

    const receipt = await adapter.getReceipt(ok);
    const nodeInfo = await info(s, ok);
    expect(receipt).toMatchObject({
      status: 'success',
      block: { number: BigInt(mined!.number), hash: mined!.id },
      // What it cost, in sun (the public gasUsed at a gasPrice of 1).
      fee: BigInt(nodeInfo.fee),
      details: {
        energyUsed: String(nodeInfo.receipt.energy_usage_total),
        energyFee: String(nodeInfo.receipt.energy_fee),
        result: 'SUCCESS',
      },
    });
    expect(adapter.fees.ofReceipt(receipt!)).toEqual({ gasUsed: BigInt(nodeInfo.fee), gasPrice: 1n });
    expect(BigInt(receipt!.details.energyUsed!)).toBeGreaterThan(0n);
    expect(receipt!.fee).toBe(BigInt(receipt!.details.energyFee!) + BigInt(receipt!.details.netFee!));

    const failed = await adapter.getReceipt(starved);
    expect(failed).toMatchObject({
      status: 'reverted',
      block: { hash: mined!.id },
      details: { result: 'OUT_OF_ENERGY', energyFee: '1000000' },
    });
    expect(failed!.fee).toBe(BigInt(failed!.details.energyFee!) + BigInt(failed!.details.netFee!)); // the whole fee limit, and the bandwidth
    expect(await adapter.getReceipt('cd'.repeat(32))).toBeNull();
  });

  it('forgets a transaction whose block was reorganised away (receipt, deposit finder, scan)', async () => {
    const to = newWallet().address;
    const txid = (await sendToken(s, payer, usdt, to, 77n)).txid as string;
    const [mined] = await s.control.produceBlocks(1);
    const n = BigInt(mined!.number);
    expect((await adapter.getReceipt(txid))!.block.hash).toBe(mined!.id);
    expect(await adapter.transfersOfTransaction(txid, [usdt], () => true)).toHaveLength(1);

    await s.control.reorg(1); // the block is replaced; its transactions are dropped
    expect(await adapter.getReceipt(txid)).toBeNull();
    expect(await adapter.transfersOfTransaction(txid, [usdt], () => true)).toEqual([]);
    const scan = await adapter.scan(n, n, [usdt], () => true);
    expect(scan.blocks[0]!.hash).not.toBe(mined!.id);
    expect(scan.transfers).toEqual([]);
  });

  it('broadcasts a signed transaction (its txID; again: still its txID) and maps refusals to reasons', async () => {
    const tw = tronWeb(s);
    const build = (from: Wallet, to: string, sun: number) => tw.transactionBuilder.sendTrx(to, sun, from.address);
    const to = newWallet().address;

    const tx = await tw.trx.sign(await build(payer, to, 2_000_000), payer.privateKey);
    expect(await adapter.broadcast(signedHex(tx))).toBe(tx.txID);
    expect(await adapter.broadcast(`0x${signedHex(tx)}`)).toBe(tx.txID); // DUP_TRANSACTION_ERROR: known

    const refusal = async (raw: string) => {
      const err = await adapter.broadcast(raw).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ChainRejectedError);
      return err as ChainRejectedError;
    };
    // Signed by a key that is not the owner's.
    const unsigned = await build(payer, to, 1_000_000);
    const sig = secp256k1.sign(unsigned.txID, newWallet().privateKey);
    const forged = { ...unsigned, signature: [sig.toCompactHex() + (sig.recovery + 27).toString(16)] };
    expect((await refusal(signedHex(forged))).reason).toBe('invalid');
    // More than the sender holds.
    const poor = await fundedWallet(s, 1_000_000);
    const tooMuch = await tw.trx.sign(await build(poor, to, 5_000_000), poor.privateKey);
    const err = await refusal(signedHex(tooMuch));
    expect(err.reason).toBe('insufficient-funds');
    expect(err.nodeMessage).toContain('balance is not sufficient');
    // Expired: built, then the chain moves past its expiration (60 s after its reference block).
    const late = await tw.trx.sign(await build(payer, to, 1_000_000), payer.privateKey);
    await s.control.advanceTime(120_000);
    await s.control.produceBlocks(1);
    expect((await refusal(signedHex(late))).reason).toBe('expired');
    // Not a transaction at all.
    expect((await refusal('zz')).reason).toBe('invalid');
  });

  it("encodes transfer(address,uint256) as the stand-in's triggersmartcontract does", async () => {
    const to = newWallet();
    const built = await tronWeb(s).transactionBuilder.triggerSmartContract(
      usdt,
      'transfer(address,uint256)',
      { feeLimit: 100_000_000 },
      [
        { type: 'address', value: to.address },
        { type: 'uint256', value: '123456789012345678901234567890' },
      ],
      payer.address,
    );
    const data = built.transaction.raw_data.contract[0]!.parameter.value.data as string;
    const ours = adapter.encodeTokenTransfer(to.address, 123456789012345678901234567890n);
    expect(ours).toBe(`0x${data}`);
    expect(adapter.encodeTokenTransfer(to.hex, 123456789012345678901234567890n)).toBe(ours);
    expect(() => adapter.encodeTokenTransfer('T-not-an-address', 1n)).toThrow();
  });
});

describe('what Tron answers differently', () => {
  it('typed data: 422 TYPED_DATA_NOT_SUPPORTED; price feeds: NOT_SUPPORTED; no nonces; hex addresses answered in T… form', async () => {
    const typed = (() => {
      try {
        capability(adapter, 'typedData');
      } catch (e) {
        return e;
      }
    })();
    expect(typed).toBeInstanceOf(BusinessRuleError);
    expect((typed as BusinessRuleError).code).toBe('TYPED_DATA_NOT_SUPPORTED');
    expect(() => capability(adapter, 'priceFeeds')).toThrow(expect.objectContaining({ code: 'NOT_SUPPORTED' }));
    expect(adapter.sender.ordering).toBe('expiry');
    expect('nonceOf' in adapter.sender).toBe(false); // no nonces: an ExpirySender
    expect(adapter.normalizeAddress(payer.hex)).toBe(payer.address);
  });
});
