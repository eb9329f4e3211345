/**
 * No call to the Solana node while a database transaction is open (as
 * test/api/rpc-outside-transactions.test.ts for EVM): the stand-in sits behind
 * test/support/rpc-gate.ts, which asks PostgreSQL at each call whether a session waits idle
 * inside a transaction all the while the call is held. No worker runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outsideTransactions, startRpcGate, type RpcGate } from '../../support/rpc-gate.js';
import { eventually } from '../../support/fixtures.js';
import { startSolanaWorld as startBaseWorld, walletApi, type SolanaWorld } from './misc-world.js';
import { outsider } from './withdrawals-world.js';

const CHAIN_ID = 990_343;
let gate: RpcGate;
let w: SolanaWorld;

beforeAll(async () => {
  gate = await startRpcGate();
  w = await startBaseWorld('solana-gate', CHAIN_ID, {
    worker: false,
    rpcUrlOf: (config) => {
      if (config.chainId !== CHAIN_ID) return config.rpcUrl;
      gate.forwardTo(config.rpcUrl);
      return gate.url;
    },
  });
  await w.sol.control.fund(w.wallet.address, 100_000_000_000n);
  await w.sol.control.mintTo(w.usdc, w.wallet.address, 1_000_000_000n);
  await eventually(
    async () => (await w.adapter.getBalances([{ owner: w.wallet.address, token: w.usdc }]))[0],
    (v) => v === 1_000_000_000n,
  );
  await gate.watch(w.h.databaseUrl);
}, 60_000);
afterAll(async () => {
  await gate?.close();
  await w?.stop();
});

const calls = <T>(run: () => Promise<T>) => outsideTransactions(gate, run);

describe('chain calls stay outside transactions on Solana', () => {
  it('withdrawals of SOL and of USDC from the master', async () => {
    for (const assetId of [w.solId, w.usdcId]) {
      const res = await calls(() => walletApi(w, 'POST', '/withdraw', { assetId, address: outsider(), amount: '1' }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.status).toBe('PENDING');
    }
  });

  it('a withdrawal of USDC from a child address, its fee paid by the master', async () => {
    const child = await walletApi(w, 'POST', '/addresses', {});
    expect(child.status, JSON.stringify(child.body)).toBe(200);
    await w.sol.control.mintTo(w.usdc, child.body.data.address, 5_000_000n);
    await eventually(
      async () => (await w.adapter.getBalances([{ owner: child.body.data.address, token: w.usdc }]))[0],
      (v) => v === 5_000_000n,
    );
    const res = await calls(() =>
      walletApi(w, 'POST', `/addresses/${child.body.data.id}/withdraw`, { assetId: w.usdcId, address: outsider(), amount: '2' }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});
