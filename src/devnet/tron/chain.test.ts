// Blocks, the solidified head, per-block transaction infos (how an indexer reads TRC-20
// Transfer events) and reorganisation of the unsolidified head.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TronStandIn } from './index.js';
import { encodeBlockHeaderRaw } from './protobuf.js';
import { fundedWallet, info, newWallet, post, sendToken, sendTrx, startForTest, tokenBalance, tronWeb } from './testkit.js';

let s: TronStandIn;
beforeAll(async () => {
  s = await startForTest();
});
afterAll(async () => {
  await s?.stop();
});

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

describe('blocks', () => {
  it('ids are the 8-byte number and the header hash; parents chain; getblock(detail=false) drops transactions', async () => {
    const a = await fundedWallet(s, 10_000_000);
    await sendTrx(s, a, newWallet().address, 1_000_000);
    const [made] = await s.control.produceBlocks(1);
    const b = await post(s, 'wallet/getblockbynum', { num: made!.number });
    expect(b.blockID).toBe(made!.id);
    expect(b.blockID.slice(0, 16)).toBe(made!.number.toString(16).padStart(16, '0'));
    const raw = b.block_header.raw_data;
    const hash = createHash('sha256')
      .update(
        encodeBlockHeaderRaw({
          timestamp: raw.timestamp,
          txTrieRoot: Buffer.from(raw.txTrieRoot, 'hex'),
          parentHash: Buffer.from(raw.parentHash, 'hex'),
          number: raw.number,
          witnessAddress: Buffer.from(raw.witness_address, 'hex'),
          version: raw.version,
        }),
      )
      .digest('hex');
    expect(b.blockID.slice(16)).toBe(hash.slice(16));
    expect(raw.parentHash).toBe((await post(s, 'wallet/getblockbynum', { num: made!.number - 1 })).blockID);
    expect(b.transactions).toHaveLength(1);
    expect(raw.timestamp % 3000).toBe(0);
    expect(await post(s, 'wallet/getblock', { id_or_num: String(made!.number), detail: false })).not.toHaveProperty('transactions');
    expect((await post(s, 'wallet/getblock', { id_or_num: made!.id, detail: true })).transactions).toHaveLength(1);
    const range = await post(s, 'wallet/getblockbylimitnext', { startNum: made!.number - 1, endNum: made!.number + 1 });
    expect(range.block.map((x: { blockID: string }) => x.blockID)).toEqual([raw.parentHash, made!.id]);
    expect((await post(s, 'wallet/getblockbylatestnum', { num: 2 })).block.at(-1).blockID).toBe(made!.id);
  });

  it('the solidified head lags 19 blocks; /walletsolidity answers only up to it', async () => {
    await s.control.produceBlocks(20);
    const a = await fundedWallet(s, 10_000_000, { USDT: 1_000_000n });
    const b = newWallet();
    const tw = tronWeb(s);
    await s.control.fund(b.address, { trx: 3_000_000 });
    const tok = await sendToken(s, a, s.tokens[0]!.address, b.address, 250_000n);
    const [sealed] = await s.control.produceBlocks(1);
    const head = (await post(s, 'wallet/getnowblock')).block_header.raw_data.number;
    const solid = (await post(s, 'walletsolidity/getnowblock')).block_header.raw_data.number;
    expect(head - solid).toBe(19);
    expect(await post(s, 'walletsolidity/gettransactioninfobyid', { value: tok.txid })).toEqual({});
    expect(await post(s, 'walletsolidity/gettransactionbyid', { value: tok.txid })).toEqual({});
    expect(await post(s, 'walletsolidity/getblockbynum', { num: sealed!.number })).toEqual({});
    // tronweb's getBalance reads /walletsolidity/getaccount: not there yet.
    expect(await tw.trx.getBalance(b.address)).toBe(0);
    expect(await tw.trx.getUnconfirmedBalance(b.address)).toBe(3_000_000);
    const solidCall = await post(s, 'walletsolidity/triggerconstantcontract', {
      owner_address: b.hex,
      contract_address: s.tokens[0]!.hex,
      function_selector: 'balanceOf(address)',
      parameter: b.hex.slice(2).padStart(64, '0'),
    });
    expect(BigInt(`0x${solidCall.constant_result[0]}`)).toBe(0n);

    await s.control.produceBlocks(18);
    expect(await post(s, 'walletsolidity/gettransactioninfobyid', { value: tok.txid })).toEqual({});
    await s.control.produceBlocks(1);
    expect((await post(s, 'walletsolidity/gettransactioninfobyid', { value: tok.txid })).blockNumber).toBe(sealed!.number);
    expect(await tw.trx.getBalance(b.address)).toBe(3_000_000);
    const later = await post(s, 'walletsolidity/triggerconstantcontract', {
      owner_address: b.hex,
      contract_address: s.tokens[0]!.hex,
      function_selector: 'balanceOf(address)',
      parameter: b.hex.slice(2).padStart(64, '0'),
    });
    expect(BigInt(`0x${later.constant_result[0]}`)).toBe(250_000n);
    expect((await tw.trx.getConfirmedTransaction(tok.txid)).txID).toBe(tok.txid);
  });

  it('gettransactioninfobyblocknum returns every info of a block with its Transfer logs in one call', async () => {
    const a = await fundedWallet(s, 50_000_000, { USDT: 10_000_000n, USDC: 10_000_000n });
    const x = newWallet();
    const y = newWallet();
    const t1 = await sendToken(s, a, s.tokens[0]!.address, x.address, 111n);
    const t2 = await sendToken(s, a, s.tokens[1]!.address, y.address, 222n);
    const t3 = await sendTrx(s, a, x.address, 1_500_000);
    const [blk] = await s.control.produceBlocks(1);
    const infos = await post(s, 'wallet/gettransactioninfobyblocknum', { num: blk!.number });
    expect(infos.map((i: { id: string }) => i.id)).toEqual([t1.txid, t2.txid, t3.txid]);
    const logs = infos.flatMap((i: { log?: unknown[] }) => i.log ?? []);
    expect(logs).toEqual([
      {
        address: s.tokens[0]!.hex.slice(2),
        topics: [TRANSFER_TOPIC, a.hex.slice(2).padStart(64, '0'), x.hex.slice(2).padStart(64, '0')],
        data: (111).toString(16).padStart(64, '0'),
      },
      {
        address: s.tokens[1]!.hex.slice(2),
        topics: [TRANSFER_TOPIC, a.hex.slice(2).padStart(64, '0'), y.hex.slice(2).padStart(64, '0')],
        data: (222).toString(16).padStart(64, '0'),
      },
    ]);
    expect(infos.every((i: { blockNumber: number }) => i.blockNumber === blk!.number)).toBe(true);
    expect(await post(s, 'wallet/gettransactioninfobyblocknum', { num: blk!.number + 1 })).toEqual([]);
  });
});

describe('reorg control', () => {
  it('replaces the last blocks: their transactions and token movements vanish, ids change', async () => {
    const a = await fundedWallet(s, 20_000_000, { USDT: 1_000_000n });
    const x = newWallet();
    const r = await sendToken(s, a, s.tokens[0]!.address, x.address, 400_000n);
    const [inBlock, next] = await s.control.produceBlocks(2);
    expect((await info(s, r.txid)).blockNumber).toBe(inBlock!.number);
    const balanceBefore = (await post(s, 'wallet/getaccount', { address: a.hex })).balance;

    const out = await s.control.reorg(2);
    expect(out.removed).toEqual([inBlock!.id, next!.id]);
    expect(out.added).toHaveLength(3);
    const replaced = await post(s, 'wallet/getblockbynum', { num: inBlock!.number });
    expect(replaced.blockID).not.toBe(inBlock!.id);
    expect(await info(s, r.txid)).toEqual({});
    expect(await tokenBalance(s, s.tokens[0]!.address, x.address)).toBe(0n);
    expect((await post(s, 'wallet/getaccount', { address: a.hex })).balance).toBeGreaterThan(balanceBefore);
    expect((await post(s, 'wallet/getblockbynum', { num: inBlock!.number + 2 })).block_header.raw_data.parentHash).toBe(out.added[1]);
  });

  it('keepTransactions moves them into the new fork', async () => {
    const a = await fundedWallet(s, 20_000_000, { USDT: 1_000_000n });
    const x = newWallet();
    const r = await sendToken(s, a, s.tokens[0]!.address, x.address, 300_000n);
    const [old] = await s.control.produceBlocks(1);
    await s.control.reorg(1, { keepTransactions: true });
    const moved = await info(s, r.txid);
    expect(moved.blockNumber).toBe(old!.number);
    expect((await post(s, 'wallet/getblockbynum', { num: old!.number })).blockID).not.toBe(old!.id);
    expect(await tokenBalance(s, s.tokens[0]!.address, x.address)).toBe(300_000n);
  });

  it('refuses to reach into solidified blocks', async () => {
    await s.control.produceBlocks(20);
    await expect(s.control.reorg(20)).rejects.toThrow(/cannot reorganise 20 blocks: only 19 are unsolidified/);
    const res = await fetch(`${s.url}/standin/reorg`, { method: 'POST', body: JSON.stringify({ depth: 25 }) });
    expect(res.status).toBe(409);
  });
});
