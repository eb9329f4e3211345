/**
 * What the Tron master-fee tests share (a sweep's, a recovery's and a settlement's fees held at
 * the master): a master staked for energy, and the steps each drives by hand with the worker
 * off (send and settle an outbound row, every unsent row of an owner, a TRX payout and its
 * quoted fee, the master's free bandwidth spent, a child holding a confirmed USDT deposit).
 * The world is read through a getter: the tests set it in their beforeAll/beforeEach.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { sql } from 'kysely';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, post, sendToken, sendTrx, startForTest, type Wallet } from '../../../src/devnet/tron/testkit.js';
import type { Harness } from '../../support/harness.js';
import { eventually } from '../../support/fixtures.js';
import { createTronWallet, startTronService, tronChain, type TronWallet } from './world.js';
import { hex, stakeForEnergy, type SweepWorld } from './sweep-world.js';

export interface MasterFeeWorld {
  s: TronStandIn;
  h: Harness;
  slug: string;
  wallet: TronWallet;
  /** Pays the children and receives the payouts. */
  payer: Wallet;
}

/** A wallet whose master holds 10,100 TRX, 10,000 of them staked for energy, and 1 USDT. */
export async function stakedMaster(s: TronStandIn, h: Harness, slug: string): Promise<TronWallet> {
  const wallet = await createTronWallet(h, s, slug, { trx: 10_100_000_000, usdt: 1_000_000n });
  await s.control.produceBlocks(1);
  await stakeForEnergy({ s, h } as SweepWorld, wallet, 10_000_000_000);
  return wallet;
}

/**
 * The world of a file of these tests, set up in its beforeAll (and stopped in its afterAll): a
 * stand-in, the service without its worker on one chain `slug`, a staked master and a payer
 * holding TRX and USDT. Its fields are set once beforeAll has run.
 */
export function stakedMasterWorld(slug: string, chainId: number): MasterFeeWorld {
  const w = { slug } as MasterFeeWorld;
  beforeAll(async () => {
    w.s = await startForTest({ blockTimeMs: 100 });
    w.h = await startTronService([tronChain(w.s, slug, chainId)], false);
    w.wallet = await stakedMaster(w.s, w.h, slug);
    w.payer = await fundedWallet(w.s, 10_000_000_000, { USDT: 1_000_000_000n });
  }, 90_000);
  afterAll(async () => {
    await w.h?.stop();
    await w.s?.stop();
  });
  return w;
}

const UNSENT = ['created', 'signed', 'broadcast'];

export function masterFeeKit(world: () => MasterFeeWorld) {
  const base = () => `/v1/wallets/${world().wallet.id}`;
  const trxAmount = (sun: bigint) => (Number(sun) / 1e6).toFixed(6);

  const kit = {
    base,
    trxOf: async (address: string) => BigInt((await post(world().s, 'wallet/getaccount', { address: hex(address) })).balance ?? 0),
    /** Sends the outbound row and tracks it until it settles (mined, failed, ...). */
    async settle(id: string) {
      const { h } = world();
      await h.services.outbound.send(id).catch(() => undefined);
      return eventually(
        async () => {
          await h.services.outbound.track(id).catch(() => undefined);
          return (await h.services.outbound.get(id))!;
        },
        (r) => !UNSENT.includes(r.stage),
        30_000,
      );
    },
    async ownRows(ownerId: string) {
      const { rows } = await sql<{ id: string; purpose: string; stage: string; value: string }>`
        SELECT id, purpose, stage, value FROM outbound_txs WHERE owner_id = ${ownerId} ORDER BY created_at, id`.execute(
        world().h.database.db,
      );
      return rows;
    },
    /** Sends and settles every unsent row of the owner, one by one. */
    async drive(ownerId: string) {
      for (let i = 0; i < 6; i++) {
        const next = (await kit.ownRows(ownerId)).find((r) => UNSENT.includes(r.stage));
        if (!next) return;
        await kit.settle(next.id);
      }
    },
    /** A TRX payout of `amount` sun from the master to the payer. */
    payout(amount: bigint) {
      const { h, wallet, payer } = world();
      return h.api('POST', `${base()}/withdraw`, {
        key: wallet.apiKey,
        body: { assetId: wallet.trxId, address: payer.address, amount: trxAmount(amount) },
      });
    },
    /** The quoted fee of a TRX payout of about `amount` to the payer (its bytes grow with the amount). */
    async payoutFee(amount: bigint): Promise<bigint> {
      const { h, wallet, payer } = world();
      const res = await h.api('POST', `${base()}/withdraw/network-fee`, {
        key: wallet.apiKey,
        body: { assetId: wallet.trxId, address: payer.address, amount: trxAmount(amount) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return BigInt(Math.round(Number(res.body.data.networkFee) * 1e6));
    },
    /** Spends the master's free bandwidth of the day: its lend and give-back then burn TRX. */
    async spendMasterFreeBandwidth() {
      for (let i = 0; i < 4; i++) {
        const r = await post(world().s, 'wallet/getaccountresource', { address: hex(world().wallet.address) });
        if ((r.freeNetLimit ?? 0) - (r.freeNetUsed ?? 0) < 200) return;
        const res = await kit.payout(1_000_000n);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        await kit.drive(res.body.data.id);
      }
    },
    /** An active child (someone sent it 1 TRX) holding a confirmed USDT deposit; returns the deposit's id. */
    async childWithDeposit(): Promise<string> {
      const { s, h, wallet, payer, slug } = world();
      const res = await h.api('POST', `${base()}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const child = (res.body.data as { address: string }).address;
      expect((await sendTrx(s, payer, child, 1_000_000)).result).toBe(true);
      const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(slug, 'testnet')!);
      while ((await indexer.step()) === 'progress');
      const sent = await sendToken(s, payer, s.tokens[0]!.address, child, 5_000_000n);
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
    },
    async sweepOf(depositId: string) {
      const { rows } = await sql<{ sweep_id: string | null }>`SELECT sweep_id FROM transactions WHERE id = ${depositId}`.execute(
        world().h.database.db,
      );
      return rows[0]!.sweep_id;
    },
  };
  return kit;
}
