// The embedded default keeps the Tron devnet in its data directory: a restart resumes the
// same chain (blocks, ledger, stakes, token state, pending transactions).
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TronStandIn } from './index.js';
import { fundedWallet, info, newWallet, post, sendToken, sendTrx, startForTest, tokenBalance, tronWeb } from './testkit.js';

const dir = mkdtempSync(path.join(tmpdir(), 'tron-standin-'));
const running: TronStandIn[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<TronStandIn> {
  const s = await startForTest({ dir });
  running.push(s);
  return s;
}

describe('persistence', () => {
  it('a restart resumes the same chain, balances, stakes, token state and pending transactions', async () => {
    const s1 = await start();
    const tw = tronWeb(s1);
    const a = await fundedWallet(s1, 5_000_000_000, { USDT: 9_000_000n });
    const b = newWallet();
    await tw.trx.sendRawTransaction(
      await tw.trx.sign(await tw.transactionBuilder.freezeBalanceV2(1_000_000_000, 'ENERGY', a.address), a.privateKey),
    );
    const tok = await sendToken(s1, a, s1.tokens[0]!.address, b.address, 2_500_000n);
    await s1.control.produceBlocks(3);
    // Left pending on purpose: it must survive the restart and land in the next block.
    const pending = await sendTrx(s1, a, b.address, 1_000_000);
    const head1 = await post(s1, 'wallet/getnowblock');
    const acct1 = await post(s1, 'wallet/getaccount', { address: a.hex });
    const tokens1 = s1.tokens;
    await s1.stop();
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(['state.json', 'chain.jsonl']));

    const s2 = await start();
    expect(s2.tokens).toEqual(tokens1);
    expect((await post(s2, 'wallet/getnowblock')).blockID).toBe(head1.blockID);
    expect(await post(s2, 'wallet/getaccount', { address: a.hex })).toEqual(acct1);
    expect((await info(s2, tok.txid)).receipt.result).toBe('SUCCESS');
    expect(await tokenBalance(s2, s2.tokens[0]!.address, b.address)).toBe(2_500_000n);
    expect((await post(s2, 'wallet/gettransactionbyid', { value: pending.txid })).txID).toBe(pending.txid);
    const [next] = await s2.control.produceBlocks(1);
    expect((await info(s2, pending.txid)).blockNumber).toBe(next!.number);
    expect(next!.number).toBe(head1.block_header.raw_data.number + 1);
    // The chain goes on: a new transfer, checked against the restored TVM state.
    const more = await sendToken(s2, a, s2.tokens[0]!.address, b.address, 500_000n);
    await s2.control.produceBlocks(1);
    expect((await info(s2, more.txid)).receipt.result).toBe('SUCCESS');
    expect(await tokenBalance(s2, s2.tokens[0]!.address, b.address)).toBe(3_000_000n);
    // The EVM history before the restart is gone: a reorg cannot reach behind it.
    const depth = (await post(s2, 'wallet/getnowblock')).block_header.raw_data.number - ((await info(s2, tok.txid)).blockNumber - 1);
    await expect(s2.control.reorg(depth)).rejects.toThrow(/behind the last restart/);
    expect((await info(s2, tok.txid)).receipt.result).toBe('SUCCESS');
    await s2.stop();
  });

  it('ignores a block written after the last committed state (a kill between the two writes)', async () => {
    const s3 = await start();
    const head = await post(s3, 'wallet/getnowblock');
    await s3.stop();
    appendFileSync(path.join(dir, 'chain.jsonl'), '{"number":999999,"half-written');
    const s4 = await start();
    expect((await post(s4, 'wallet/getnowblock')).blockID).toBe(head.blockID);
    await s4.control.produceBlocks(1);
    await s4.stop();
    const s5 = await start();
    expect((await post(s5, 'wallet/getnowblock')).block_header.raw_data.number).toBe(head.block_header.raw_data.number + 1);
    await s5.stop();
  });

  it('refuses a directory made with another token list', async () => {
    await expect(startForTest({ dir, tokens: [{ symbol: 'USDT', decimals: 18 }] })).rejects.toThrow(
      /was created with tokens USDT\/6, USDC\/6/,
    );
  });
});
