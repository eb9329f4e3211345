/**
 * Two sweeps of one Tron child, of two tokens, with energy lent from the master's stake: the
 * second is planned while the first one's loan sits at the child (lent, its transfer not yet
 * sent). That energy is the master's, taken back once the first transfer settled; the second
 * sweep must lend its own, or its transfer finds no energy when it runs. The worker is off:
 * each outbound row is sent and tracked by hand, in the order that shows it.
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
const SLUG = 'tron-two';

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 100 });
  const [usdt, usdc] = s.tokens;
  const chain = tronChain(s, SLUG, 990_311, {
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
  const { rows } = await sql<{ id: string; purpose: string; stage: string; hash: string | null }>`
    SELECT id, purpose, stage, hash FROM outbound_txs WHERE owner_id = ${sweepId} ORDER BY created_at, id`.execute(h.database.db);
  return rows;
}
async function sweepOf(depositId: string) {
  const { rows } = await sql<{ sweep_id: string }>`SELECT sweep_id FROM transactions WHERE id = ${depositId}`.execute(h.database.db);
  return rows[0]!.sweep_id;
}
/** Sends one row and tracks it until it settles. */
async function settle(id: string) {
  await h.services.outbound.send(id);
  return eventually(
    async () => {
      await h.services.outbound.track(id);
      return (await h.services.outbound.get(id))!;
    },
    (r) => !['created', 'signed', 'broadcast'].includes(r.stage),
    30_000,
  );
}
/** Settles the sweep's rows one by one until none is left unsent, or until a row of `stopAt` is queued. */
async function drive(sweepId: string, stopAt?: string) {
  // Four steps at most; a transfer the node keeps refusing is rebuilt at each expiry, for ever.
  for (let i = 0; i < 6; i++) {
    const next = (await rowsOf(sweepId)).find((r) => ['created', 'signed', 'broadcast'].includes(r.stage));
    if (!next || next.purpose === stopAt) return;
    const settled = await settle(next.id);
    if (settled.stage === 'replaced') throw new Error(`${settled.purpose} never lands: ${settled.error}`);
  }
  throw new Error('the sweep does not end');
}

describe('two sweeps of one Tron child, energy lent', () => {
  it("the second sweep planned while the first one's loan is at the child lends its own energy", async () => {
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
    const masterUsdc = await tokenBalance(s, usdc!.address, wallet.address);

    // The USDT sweep: the child activated, the energy lent; its transfer queued, not sent.
    expect(
      (await h.api('POST', `${base()}/transactions/sweep/assets`, { key: wallet.apiKey, body: { transactionId: usdtDeposit } })).status,
    ).toBe(200);
    const first = await sweepOf(usdtDeposit);
    await drive(first, 'sweep');
    expect((await rowsOf(first)).map((r) => [r.purpose, r.stage])).toContainEqual(['sweep-lend', 'mined']);

    // The USDC sweep is planned now, the first loan at the child.
    expect(
      (await h.api('POST', `${base()}/transactions/sweep/assets`, { key: wallet.apiKey, body: { transactionId: usdcDeposit } })).status,
    ).toBe(200);
    const second = await sweepOf(usdcDeposit);

    // The first sweep ends: its transfer, then its energy taken back.
    await drive(first);
    expect((await rowsOf(first)).map((r) => r.stage)).toEqual(['mined', 'mined', 'mined', 'mined']);

    // Then the second: it needs energy of its own at the child.
    await drive(second);
    const rows = await rowsOf(second);
    const transfer = rows.find((r) => r.purpose === 'sweep')!;
    const info = await post(s, 'wallet/gettransactioninfobyid', { value: transfer.hash });
    expect(info.receipt?.result ?? 'SUCCESS', JSON.stringify(rows)).toBe('SUCCESS');
    expect(await tokenBalance(s, usdc!.address, wallet.address)).toBe(masterUsdc + 5_000_000n);
    const d = (await h.api('GET', `${base()}/transactions/${usdcDeposit}`, { key: wallet.apiKey })).body.data as Record<string, any>;
    expect(d.assetSwept, JSON.stringify(d.assetSweptResponse)).toBe(true);
    // Every loan is back with the master.
    expect(await post(s, 'wallet/getdelegatedresourcev2', { fromAddress: hex(wallet.address), toAddress: hex(child.address) })).toEqual({});
  }, 180_000);
});
