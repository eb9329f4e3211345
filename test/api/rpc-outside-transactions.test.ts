/**
 * No chain call while a database transaction is open. A transaction waiting on the node
 * holds a pool connection (and the sender's lock) for as long as the node takes, up to the
 * client's timeout and retries: a slow node and enough requests at once empty the pool and
 * every route waits. Each flow below reads the chain first and decides under its locks on
 * what it read (funds.ts, the sender's first nonce, a swap's allowance).
 *
 * The devnet's node sits behind a proxy that asks PostgreSQL, at each call, whether a
 * session of the service's database is idle inside a transaction (test/support/rpc-gate.ts).
 * No worker runs: the only transactions are the requests'.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, getAddress, parseAbi, type Address, type Hex } from 'viem';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { loadArtifact } from '../../src/devnet/compile.js';
import { startHarness, type Harness } from '../support/harness.js';
import { outsideTransactions, startRpcGate, type RpcGate } from '../support/rpc-gate.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { call } from '../contracts/support.js';

let h: Harness;
let gate: RpcGate;
let eth: TestChain;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const assetId = (symbol: string) => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === symbol)!.id;

beforeAll(async () => {
  gate = await startRpcGate();
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    rpcUrlOf: (config) => {
      gate.forwardTo(config.rpcUrl);
      return gate.url;
    },
  });
  eth = chainOf(h, 'devnet-eth');
  await eth.sendToken('USDC', wallet().address, '1000');
  await gate.watch(h.databaseUrl);
}, 90_000);
afterAll(async () => {
  await gate?.close();
  await h?.stop();
});
beforeEach(() => {
  gate.caught.length = 0;
});

const calls = <T>(run: () => Promise<T>) => outsideTransactions(gate, run);

/** A new wallet on devnet-eth, its master holding 1 ETH, ETH enabled: a sender that never sent. */
async function fundedWallet(name: string) {
  const created = await h.api('POST', '/v1/wallets', {
    key: h.businessKey,
    body: { blockchain: 'devnet-eth', network: 'testnet', name },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const w = created.body.data as { id: string; address: string; apiKey: string };
  await eth.sendNative(w.address, '1');
  const native = assetId('ETH');
  expect((await h.api('POST', `/v1/wallets/${w.id}/assets`, { key: w.apiKey, body: { assetId: native } })).status).toBe(200);
  return { w, native };
}

describe('chain calls stay outside transactions', () => {
  it("a new wallet's first withdrawal (its sender's first nonce)", async () => {
    const { w, native } = await fundedWallet('first nonce');
    // Made ready before a transaction that may still refuse: nothing written, not even the
    // sender's nonce counter (written then, it could be stale by the sender's first send).
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    await h.services.outbound.ready(chain, [w.address]);
    const counters = () => sql<{ n: number }>`SELECT count(*)::int AS n FROM nonces WHERE address = ${w.address}`.execute(h.database.db);
    expect((await counters()).rows[0]!.n).toBe(0);
    const paid = await calls(() =>
      h.api('POST', `/v1/wallets/${w.id}/withdraw`, { key: w.apiKey, body: { assetId: native, address: fresh(), amount: '0.001' } }),
    );
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect((await counters()).rows[0]!.n).toBe(1);
    const { nonce } = (await h.services.db
      .selectFrom('outbound_txs')
      .select('nonce')
      .where('from_address', '=', w.address)
      .executeTakeFirstOrThrow()) as { nonce: string | bigint };
    expect(BigInt(nonce)).toBe(0n);
  });

  it('a swap from the master (its balances, its allowance to the router)', async () => {
    const res = await calls(() =>
      h.api('POST', `${base()}/swaps/execute`, {
        body: { fromAssetId: assetId('USDC'), toAssetId: assetId('USDT'), amount: '10', reference: 'gate-swap' },
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'SWAP', status: 'PENDING' });
  });

  it('a recovery of an unlisted token from a child address paying its own fee (its balances, held like a withdrawal)', async () => {
    const art = (await loadArtifact('TestToken'))!;
    const deployed = await eth.wallet.deployContract({
      abi: art.abi,
      bytecode: art.bytecode as Hex,
      args: ['Lost', 'LOST', 6],
      chain: null,
    });
    const lost = getAddress((await eth.pub.waitForTransactionReceipt({ hash: deployed })).contractAddress!);
    const child = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    expect(child.status).toBe(200);
    const at = child.body.data.address as Address;
    await eth.pub.waitForTransactionReceipt({
      hash: await eth.wallet.writeContract({
        address: lost,
        abi: parseAbi(['function mint(address to, uint256 amount)']),
        functionName: 'mint',
        args: [at, 5_000_000n],
        chain: null,
      }),
    });
    expect(await eth.pub.readContract({ address: lost, abi: erc20Abi, functionName: 'balanceOf', args: [at] })).toBe(5_000_000n);
    // Its own fee: no top-up, so the recovery is held against the child's withdrawals.
    await eth.sendNative(at, '1');
    const blockchainId = h.services.catalogue.findChain('devnet-eth', 'testnet')!.row.blockchain_id;
    const res = await calls(() =>
      h.api('POST', `${base()}/salvage`, {
        body: { senderAddress: at, recipientAddress: fresh(), amount: '5', blockchainId, tokenAddress: lost, reference: 'gate-lost' },
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'SALVAGE', status: 'PENDING', amount: '5' });
    expect(res.body.data.metadata.salvage).toMatchObject({ funding: 'none' });
  });

  it('a contract write from a new child address (its first nonce, its balances)', async () => {
    const child = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    expect(child.status).toBe(200);
    await eth.sendToken('USDC', child.body.data.address, '5');
    await eth.sendNative(child.body.data.address, '1');
    const usdc = eth.token('USDC').address;
    const res = await calls(() =>
      h.api('POST', `${base()}/addresses/${child.body.data.id}/contracts/write`, {
        body: { calls: [call(usdc, 'transfer', [fresh(), '1000'])] },
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'CUSTOM_SMART_CONTRACT', status: 'PENDING', senderAddress: child.body.data.address });
  });

  // Another swap B of the sender lowers the allowance A read (B's router pull) between A's
  // read and A's lock: B in flight at A's read and ended since, or B begun and ended since.
  for (const when of ['in flight at the read', 'begun after the read'] as const) {
    it(`a swap reads the allowance again when another swap of its sender, ${when}, ended before its lock`, async () => {
      const master = wallet().address as Address;
      const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.address as Address;
      const router = h.services.catalogue.findChain('devnet-eth', 'testnet')!.config.swapRouter as Address;
      const amount = 10n * 10n ** 6n;
      // The master approves the router directly (the devnet lets a test sign as it).
      const approve = async (value: bigint) => {
        await eth.rpc('anvil_impersonateAccount', [master]);
        const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, value] });
        const hash = await eth.rpc<Hex>('eth_sendTransaction', [{ from: master, to: usdc, data }]);
        await eth.pub.waitForTransactionReceipt({ hash });
        await eth.rpc('anvil_stopImpersonatingAccount', [master]);
      };
      const swap = (reference: string) =>
        h.api('POST', `${base()}/swaps/execute`, {
          body: { fromAssetId: assetId('USDC'), toAssetId: assetId('USDT'), amount: '10', reference },
        });
      // No worker runs here: end what earlier tests left in flight.
      await sql`UPDATE swaps SET status = 'failed' WHERE sender = ${master} AND status = 'pending'`.execute(h.database.db);
      await approve(amount);
      let b: string | null = null;
      if (when === 'in flight at the read') {
        const res = await swap(`gate-b-${when}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        b = res.body.data.id;
      }
      // A's allowance read answers `amount`; then, before A takes its lock, B pulls it
      // (allowance 0) and ends. A must not sign without approving again.
      gate.afterAnswer(
        (call) =>
          call.method === 'eth_call' &&
          String((call.params[0] as { data?: string; input?: string }).data ?? (call.params[0] as { input?: string }).input).startsWith(
            '0xdd62ed3e',
          ),
        async () => {
          if (b === null) {
            const res = await swap(`gate-b-${when}`);
            expect(res.status, JSON.stringify(res.body)).toBe(200);
            b = res.body.data.id;
          }
          await approve(0n);
          await sql`UPDATE swaps SET status = 'failed' WHERE id = ${b}`.execute(h.database.db);
        },
      );
      const a = await calls(() => swap(`gate-a-${when}`));
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(b, 'the allowance read was answered through the proxy').not.toBeNull();
      const { rows } = await sql<{ plan: { approvals: string[] } }>`SELECT plan FROM swaps WHERE id = ${a.body.data.id}`.execute(
        h.database.db,
      );
      expect(rows[0]!.plan.approvals).toEqual([amount.toString()]);
    });
  }

  it('a funds check taken the slow way (a payout mined, not yet recorded) waits on a slow node 3 s at most, then 503', async () => {
    const { w, native } = await fundedWallet('slow path');
    const pay = (amount: string) =>
      h.api('POST', `/v1/wallets/${w.id}/withdraw`, { key: w.apiKey, body: { assetId: native, address: fresh(), amount } });
    const first = await pay('0.6');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // Sent and mined (no worker here: nobody records it), so it is both spent on chain and
    // PENDING: the quick check counts it twice and refuses 0.3, the receipt shows it mined.
    const [row] = await h.services.outbound.ofOwner(first.body.data.id);
    await h.services.outbound.send(row!.id);
    await eventually(
      () => eth.pub.getBalance({ address: w.address as Address }),
      (b) => b < 10n ** 18n / 2n,
    );
    const rows = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM transactions WHERE wallet_id = ${w.id}`.execute(h.database.db)).rows[0]!.n;
    gate.slow((call) => call.method === 'eth_getTransactionReceipt', 4_500);
    try {
      const slow = await pay('0.3');
      expect(slow.status, JSON.stringify(slow.body)).toBe(503);
      expect(slow.body.error).toBe('CHAIN_UNAVAILABLE');
      expect(await rows()).toBe(1);
      // Several at once, checked in one transaction under the sender's lock: 3 s for all of
      // them, not each (each waited its own 3 s, and a later one outlasted the slow answer).
      // The late receipt read above ends first (a read still in flight is shared, also by
      // the next transaction); answers now come later than two transactions' 3 s.
      await new Promise((r) => setTimeout(r, 2_000));
      gate.slow((call) => call.method === 'eth_getTransactionReceipt', 9_000);
      const many = await Promise.all(['0.01', '0.02', '0.03', '0.04'].map(pay));
      expect(many.map((r) => r.status)).toEqual([503, 503, 503, 503]);
      expect(await rows()).toBe(1);
    } finally {
      gate.slow(null);
    }
    // Safe to retry: once the node answers in time, the same payout is accepted.
    const paid = await eventually(
      () => pay('0.3'),
      (r) => r.status !== 503,
      20_000,
    );
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await rows()).toBe(2);
  });

  it("a send whose flow skipped `ready` reads a new sender's nonce in its transaction, 10 s at most", async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'unready' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const w = created.body.data as { id: string; address: string };
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const enqueue = () =>
      h.services.db.transaction().execute((tx) =>
        h.services.outbound.enqueue(tx, {
          chainId: chain.id,
          walletId: w.id,
          fromIndex: 0,
          intent: { kind: 'native', to: fresh(), amount: 1n },
          purpose: 'test-unready',
        }),
      );
    const written = async () =>
      (
        await sql<{ n: number }>`
          SELECT (SELECT count(*) FROM outbound_txs WHERE wallet_id = ${w.id}) + (SELECT count(*) FROM nonces WHERE address = ${w.address}) AS n`.execute(
          h.database.db,
        )
      ).rows[0]!.n;
    gate.slow((call) => call.method === 'eth_getTransactionCount', 12_000);
    try {
      await expect(enqueue()).rejects.toMatchObject({ code: 'CHAIN_UNAVAILABLE' });
      expect(Number(await written())).toBe(0);
    } finally {
      gate.slow(null);
    }
    const sent = await eventually(
      () => enqueue().catch((err: { code?: string }) => ({ failed: err.code })),
      (r) => !('failed' in r),
      15_000,
    );
    expect(sent).toMatchObject({ nonce: 0n, from: w.address });
  });
});
