// The /standin/* control API over HTTP (what seeding scripts and tests outside this process
// use), timed block production with pause/resume, and Multicall3 reading TRX balances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TronStandIn } from './index.js';
import { selectorOf } from './vm.js';
import { info, newWallet, post, startForTest, tokenBalance } from './testkit.js';

const control = async (s: TronStandIn, path: string, body: unknown = {}) => {
  const res = await fetch(`${s.url}/standin/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const headNumber = async (s: TronStandIn) => (await post(s, 'wallet/getnowblock')).block_header.raw_data.number as number;

describe('control API over HTTP', () => {
  let s: TronStandIn;
  beforeAll(async () => {
    s = await startForTest();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('funds with TRX and tokens as real transactions, mines on demand, reports itself', async () => {
    const w = newWallet();
    const funded = await control(s, 'fund', { address: w.address, trx: '2500000', tokens: { USDT: '1234', [s.tokens[1]!.address]: 99 } });
    expect(funded.status).toBe(200);
    expect(funded.body.txids).toHaveLength(3);
    const mined = await control(s, 'mine', { blocks: 2 });
    expect(mined.body.blocks).toHaveLength(2);
    expect((await info(s, funded.body.txids[0])).blockNumber).toBe(mined.body.blocks[0].number);
    expect((await post(s, 'wallet/getaccount', { address: w.hex })).balance).toBe(2_500_000);
    expect(await tokenBalance(s, s.tokens[0]!.address, w.address)).toBe(1234n);
    expect(await tokenBalance(s, s.tokens[1]!.address, w.address)).toBe(99n);
    const about = await (await fetch(`${s.url}/standin/info`)).json();
    expect(about).toMatchObject({ head: await headNumber(s), solidified: Math.max(0, (await headNumber(s)) - 19), producing: false });
    expect(about.tokens.map((t: { symbol: string }) => t.symbol)).toEqual(['USDT', 'USDC']);
  });

  it('answers bad control requests with 400 and an error', async () => {
    expect((await control(s, 'fund', { address: 'nope', trx: 1 })).status).toBe(400);
    expect((await control(s, 'fund', { address: newWallet().address, tokens: { DAI: 1 } })).body.error).toMatch(/unknown token DAI/);
    expect((await control(s, 'mine', { blocks: 0 })).status).toBe(400);
    expect((await control(s, 'time', { advanceMs: -5 })).status).toBe(400);
  });

  it('Multicall3 sees TRX balances (getEthBalance) as the contracts do', async () => {
    const w = newWallet();
    await s.control.fund(w.address, { trx: 7_000_000 });
    await s.control.produceBlocks(1);
    const r = await post(s, 'wallet/triggerconstantcontract', {
      owner_address: w.hex,
      contract_address: s.multicall.hex,
      data: selectorOf('getEthBalance(address)') + w.hex.slice(2).padStart(64, '0'),
    });
    expect(BigInt(`0x${r.constant_result[0]}`)).toBe(7_000_000n);
  });
});

describe('timed block production', () => {
  let s: TronStandIn;
  beforeAll(async () => {
    s = await startForTest({ blockTimeMs: 150 });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const waitFor = async (cond: () => Promise<boolean>, ms = 10_000) => {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await cond()) return;
    throw new Error('timed out');
  };

  it('produces blocks on its own, stops while paused and goes on when resumed', async () => {
    const start = await headNumber(s);
    await waitFor(async () => (await headNumber(s)) >= start + 3);
    expect((await control(s, 'pause')).body).toEqual({ producing: false });
    // A block already due may still land; after that the head stays put.
    await new Promise((r) => setTimeout(r, 400));
    const paused = await headNumber(s);
    await new Promise((r) => setTimeout(r, 600));
    expect(await headNumber(s)).toBe(paused);
    expect((await control(s, 'resume')).body).toEqual({ producing: true });
    await waitFor(async () => (await headNumber(s)) >= paused + 2);
  });
});
