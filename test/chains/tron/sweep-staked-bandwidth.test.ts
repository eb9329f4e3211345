/**
 * A Tron child with a little staked bandwidth of its own (someone delegated it some) and its
 * free bandwidth partly used: java-tron takes a transaction's bytes from one pool or the
 * other, never both (BandwidthProcessor.consume: staked, else free, else TRX for all of
 * them). A sweep whose plan added the two found enough where neither alone was, sent no TRX
 * for the bytes, and java-tron refused the transfer (BANDWITH_ERROR) at every rebuild. The
 * worker is off: each row is driven by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, post, sendToken, startForTest, tokenBalance, tronWeb, type Wallet } from '../../../src/devnet/tron/testkit.js';
import type { Harness } from '../../support/harness.js';
import { eventually } from '../../support/fixtures.js';
import { createTronWallet, startTronService, tronChain, type TronWallet } from './world.js';
import { hex, stakeForEnergy, type SweepWorld } from './sweep-world.js';

let s: TronStandIn;
let h: Harness;
let wallet: TronWallet;
let payer: Wallet;
const SLUG = 'tron-staked-bw';

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 100 });
  h = await startTronService([tronChain(s, SLUG, 990_314)], false);
  wallet = await createTronWallet(h, s, SLUG, { trx: 20_000_000_000, usdt: 1_000_000n });
  await s.control.produceBlocks(1);
  await stakeForEnergy({ s, h } as SweepWorld, wallet, 10_000_000_000);
  payer = await fundedWallet(s, 10_000_000_000, { USDT: 1_000_000_000n });
}, 90_000);
afterAll(async () => {
  await h?.stop();
  await s?.stop();
});

const base = () => `/v1/wallets/${wallet.id}`;

async function signedSend(tx: any) {
  const tw = tronWeb(s);
  const sent = await tw.trx.sendRawTransaction(await tw.trx.sign(tx, payer.privateKey));
  expect(sent.result, JSON.stringify(sent)).toBe(true);
  await s.control.produceBlocks(1);
}

async function depositOf(amount: bigint, child: string): Promise<string> {
  const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
  while ((await indexer.step()) === 'progress');
  const sent = await sendToken(s, payer, s.tokens[0]!.address, child, amount);
  expect(sent.result, JSON.stringify(sent)).toBe(true);
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
  return rows[0]!.id;
}

async function rowsOf(depositId: string) {
  const { rows } = await sql<{ id: string; purpose: string; stage: string; hash: string | null }>`
    SELECT o.id, o.purpose, o.stage, o.hash FROM outbound_txs o JOIN transactions t ON t.sweep_id = o.owner_id
     WHERE t.id = ${depositId} ORDER BY o.created_at, o.id`.execute(h.database.db);
  return rows;
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
/** Sweeps the deposit, settling its rows one by one (a transfer refused at every rebuild stops after a few). */
async function sweep(depositId: string) {
  const r = await h.api('POST', `${base()}/transactions/sweep/assets`, { key: wallet.apiKey, body: { transactionId: depositId } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  for (let i = 0; i < 6; i++) {
    const next = (await rowsOf(depositId)).find((r) => ['created', 'signed', 'broadcast'].includes(r.stage));
    if (!next) return;
    await settle(next.id);
  }
}

describe('a Tron child with some staked bandwidth and its free bandwidth partly used', () => {
  it("sends the TRX the transfer's bytes burn when neither pool alone covers them", async () => {
    const res = await h.api('POST', `${base()}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = (res.body.data as { address: string }).address;
    const tw = tronWeb(s);
    // Someone activates the child (1 sun) and lends it 300 TRX of staked bandwidth: about 300 bytes a day.
    await signedSend(await tw.transactionBuilder.sendTrx(child, 1, payer.address));
    await signedSend(await tw.transactionBuilder.freezeBalanceV2(1_000_000_000, 'BANDWIDTH', payer.address));
    await signedSend(await tw.transactionBuilder.delegateResource(300_000_000, child, 'BANDWIDTH', payer.address));
    const before = await post(s, 'wallet/getaccountresource', { address: hex(child) });
    expect(before.NetLimit).toBeGreaterThan(200);
    expect(before.NetLimit).toBeLessThan(345);

    // A first sweep: its 345 bytes come out of the free 600 (the staked ~300 are too few).
    const first = await depositOf(5_000_000n, child);
    await sweep(first);
    expect((await rowsOf(first)).map((r) => r.stage)).toEqual(['mined', 'mined', 'mined']);
    const between = await post(s, 'wallet/getaccountresource', { address: hex(child) });
    expect(600 - (between.freeNetUsed ?? 0)).toBeLessThan(345);
    expect((between.NetLimit ?? 0) - (between.NetUsed ?? 0)).toBeLessThan(345);

    // A second one the same day: 255 free bytes and ~300 staked, neither enough alone.
    const masterUsdt = await tokenBalance(s, s.tokens[0]!.address, wallet.address);
    const second = await depositOf(3_000_000n, child);
    await sweep(second);
    const rows = await rowsOf(second);
    expect(
      rows.map((r) => [r.purpose, r.stage]),
      JSON.stringify(rows),
    ).toEqual([
      ['sweep-topup', 'mined'],
      ['sweep-lend', 'mined'],
      ['sweep', 'mined'],
      ['sweep-give-back', 'mined'],
    ]);
    expect(await tokenBalance(s, s.tokens[0]!.address, wallet.address)).toBe(masterUsdt + 3_000_000n);
    expect(await tokenBalance(s, s.tokens[0]!.address, child)).toBe(0n);
  }, 240_000);
});
