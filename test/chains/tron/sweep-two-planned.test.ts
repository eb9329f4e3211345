/**
 * Two sweeps of one fresh Tron child, of two tokens, both planned before either loan or
 * transfer reached the chain (two deposits confirmed together): with energy lent, each plan
 * finds the child's 600 free bytes untouched, yet only one transfer (345 bytes) fits in them.
 * The second transfer must have TRX to burn for its bytes, or java-tron refuses it
 * (BANDWITH_ERROR) and the sweep never lands. The worker is off: each row is driven by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, post, sendToken, startForTest, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import type { Harness } from '../../support/harness.js';
import { eventually } from '../../support/fixtures.js';
import { createTronWallet, startTronService, tronChain, type TronWallet } from './world.js';
import { hex, stakeForEnergy, type SweepWorld } from './sweep-world.js';

let s: TronStandIn;
let h: Harness;
let wallet: TronWallet;
let usdcId: string;
const SLUG = 'tron-two-planned';

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 100 });
  const [usdt, usdc] = s.tokens;
  const chain = tronChain(s, SLUG, 990_313, {
    assets: [
      { symbol: 'USDT', address: usdt!.address, decimals: 6 },
      { symbol: 'USDC', address: usdc!.address, decimals: 6 },
    ],
  });
  h = await startTronService([chain], false);
  wallet = await createTronWallet(h, s, SLUG, { trx: 20_000_000_000, usdt: 1_000_000n });
  usdcId = h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;
  const enabled = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${usdcId}`, { key: wallet.apiKey, body: { isActive: true } });
  expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
  await s.control.fund(wallet.address, { tokens: { USDC: 1_000_000n } });
  await s.control.produceBlocks(1);
  await stakeForEnergy({ s, h } as SweepWorld, wallet, 10_000_000_000);
}, 90_000);
afterAll(async () => {
  await h?.stop();
  await s?.stop();
});

const base = () => `/v1/wallets/${wallet.id}`;

async function rowsOf(sweepId: string) {
  const { rows } = await sql<{ id: string; purpose: string; stage: string; hash: string | null; error: string | null }>`
    SELECT id, purpose, stage, hash, error FROM outbound_txs WHERE owner_id = ${sweepId} ORDER BY created_at, id`.execute(h.database.db);
  return rows;
}
async function sweepOf(depositId: string) {
  const { rows } = await sql<{ sweep_id: string }>`SELECT sweep_id FROM transactions WHERE id = ${depositId}`.execute(h.database.db);
  return rows[0]!.sweep_id;
}
async function settle(id: string) {
  await h.services.outbound.send(id).catch(() => undefined);
  return eventually(
    async () => {
      await h.services.outbound.track(id).catch(() => undefined);
      return (await h.services.outbound.get(id))!;
    },
    (r) => !['created', 'signed', 'broadcast'].includes(r.stage),
    30_000,
  );
}
/** Settles the sweep's rows one by one until none is left unsent. */
async function drive(sweepId: string) {
  for (let i = 0; i < 6; i++) {
    const next = (await rowsOf(sweepId)).find((r) => ['created', 'signed', 'broadcast'].includes(r.stage));
    if (!next) return;
    await settle(next.id);
  }
}

describe('two sweeps of one fresh Tron child planned together, energy lent', () => {
  it("the second transfer has the TRX its bytes burn: the first one's took the free bandwidth", async () => {
    const res = await h.api('POST', `${base()}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = res.body.data as { id: string; address: string };
    const payer = await fundedWallet(s, 1_000_000_000, { USDT: 1_000_000_000n, USDC: 1_000_000_000n });
    const [usdt, usdc] = s.tokens;
    const ids: string[] = [];
    for (const token of [usdt!, usdc!]) {
      const sent = await sendToken(s, payer, token.address, child.address, 5_000_000n);
      expect(sent.result, JSON.stringify(sent)).toBe(true);
      const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
      const rows = await eventually(
        async () => {
          await indexer.step();
          const { rows } = await sql<{ id: string; status: string }>`
            SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${sent.txid as string}`.execute(h.database.db);
          return rows;
        },
        (r) => r[0]?.status === 'SUCCESS',
        90_000,
      );
      ids.push(rows[0]!.id);
    }
    const [usdtDeposit, usdcDeposit] = ids as [string, string];
    const masterUsdt = await tokenBalance(s, usdt!.address, wallet.address);
    const masterUsdc = await tokenBalance(s, usdc!.address, wallet.address);

    // Both sweeps planned now: nothing of either has reached the chain yet.
    for (const transactionId of [usdtDeposit, usdcDeposit]) {
      const r = await h.api('POST', `${base()}/transactions/sweep/assets`, { key: wallet.apiKey, body: { transactionId } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const first = await sweepOf(usdtDeposit);
    const second = await sweepOf(usdcDeposit);

    await drive(first);
    await drive(second);

    const rows = await rowsOf(second);
    expect(
      rows.map((r) => [r.purpose, r.stage]),
      JSON.stringify(rows),
    ).toContainEqual(['sweep', 'mined']);
    const transfer = rows.find((r) => r.purpose === 'sweep' && r.stage === 'mined')!;
    const info = await post(s, 'wallet/gettransactioninfobyid', { value: transfer.hash });
    expect(info.receipt?.result ?? 'SUCCESS').toBe('SUCCESS');
    expect(await tokenBalance(s, usdt!.address, wallet.address)).toBe(masterUsdt + 5_000_000n);
    expect(await tokenBalance(s, usdc!.address, wallet.address)).toBe(masterUsdc + 5_000_000n);
    for (const id of ids) {
      const d = (await h.api('GET', `${base()}/transactions/${id}`, { key: wallet.apiKey })).body.data as Record<string, any>;
      expect(d.assetSwept, JSON.stringify(d.assetSweptResponse)).toBe(true);
    }
    expect(await post(s, 'wallet/getdelegatedresourcev2', { fromAddress: hex(wallet.address), toAddress: hex(child.address) })).toEqual({});
  }, 240_000);
});
