/**
 * No call to the Tron node while a database transaction is open (as
 * test/api/rpc-outside-transactions.test.ts for EVM): the java-tron stand-in sits behind
 * test/support/rpc-gate.ts, which asks PostgreSQL at each call whether a session waits idle
 * inside a transaction all the while the call is held. No worker runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWallet, startForTest } from '../../../src/devnet/tron/testkit.js';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import type { Harness } from '../../support/harness.js';
import { outsideTransactions, startRpcGate, type RpcGate } from '../../support/rpc-gate.js';
import { createTronWallet, startTronService, tronChain, type TronWallet } from './world.js';

const SLUG = 'tron-gate';
let s: TronStandIn;
let gate: RpcGate;
let h: Harness;
let w: TronWallet;

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 100 });
  gate = await startRpcGate();
  gate.forwardTo(s.url);
  h = await startTronService([{ ...tronChain(s, SLUG, 990_341), rpcUrl: gate.url }], false);
  w = await createTronWallet(h, s, SLUG, { trx: 500_000_000, usdt: 1_000_000_000n });
  await s.control.produceBlocks(1);
  await gate.watch(h.databaseUrl);
}, 60_000);
afterAll(async () => {
  await gate?.close();
  await h?.stop();
  await s?.stop();
});

const calls = <T>(run: () => Promise<T>) => outsideTransactions(gate, run);

const api = (method: string, path: string, body?: unknown) =>
  h.api(method as 'POST', `/v1/wallets/${w.id}${path}`, { key: w.apiKey, ...(body === undefined ? {} : { body }) });

describe('chain calls stay outside transactions on Tron', () => {
  it('withdrawals of TRX and of USDT from the master', async () => {
    const to = newWallet().address;
    for (const assetId of [w.trxId, w.usdtId]) {
      const res = await calls(() => api('POST', '/withdraw', { assetId, address: to, amount: '1' }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.status).toBe('PENDING');
    }
  });

  it('a stake of TRX for ENERGY', async () => {
    const res = await calls(() => api('POST', '/staking/stake', { amount: '100', resource: 'ENERGY' }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'STAKING', status: 'PENDING' });
  });
});
