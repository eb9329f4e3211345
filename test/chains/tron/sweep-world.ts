/**
 * A Tron sweep world for the sweep tests and the sweep benchmark: the java-tron stand-in with
 * short blocks, the real service (harness) with two chains-file Tron chains on it, one whose
 * sweeps may borrow the master's staked energy (`sweepFunding` absent: auto) and one that
 * burns TRX (`sweepFunding: 'burn'`), a wallet on each, funded from the stand-in's faucet.
 */
import { sql } from 'kysely';
import { hexToBytes } from '@noble/hashes/utils';
import type { ChainConfig } from '../../../src/config/chains.js';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import { fundedWallet, post, sendToken, startForTest, tronWeb, type Wallet } from '../../../src/devnet/tron/testkit.js';
import { tronHex } from '../../../src/chains/tron/codec.js';
import type { Harness } from '../../support/harness.js';
import { eventually } from '../../support/fixtures.js';
import { createTronWallet, startTronService, tronChain, type TronWallet } from './world.js';

export { CONFIRMATIONS, units, type TronWallet } from './world.js';

export interface SweepWorld {
  s: TronStandIn;
  h: Harness;
  usdt: string;
  payer: Wallet;
  /** A wallet on the chain that lends energy (auto), and one on the chain that burns. */
  lending: TronWallet;
  burning: TronWallet;
  /** Every chain of the harness (the devnet's and the two Tron chains), for a worker in another process. */
  chains: ChainConfig[];
  stop(): Promise<void>;
}

export async function startSweepWorld(opts: { webhookUrl?: string; worker?: boolean } = {}): Promise<SweepWorld> {
  const s = await startForTest({ blockTimeMs: 100 });
  const extraChains = [tronChain(s, 'tron-lend', 990_301), tronChain(s, 'tron-burn', 990_302, { sweepFunding: 'burn' })];
  const h = await startTronService(extraChains, opts.worker ?? true);
  // The masters hold USDT already, as a master that swept before does (the cheaper transfer).
  const fund = { trx: 20_000_000_000, usdt: 1_000_000n, ...(opts.webhookUrl ? { webhookUrl: opts.webhookUrl } : {}) };
  const lending = await createTronWallet(h, s, 'tron-lend', fund);
  const burning = await createTronWallet(h, s, 'tron-burn', fund);
  await s.control.produceBlocks(1);
  const payer = await fundedWallet(s, 1_000_000_000, { USDT: 1_000_000_000n });
  return {
    s,
    h,
    usdt: s.tokens[0]!.address,
    payer,
    lending,
    burning,
    chains: [...h.devnet.chains.map((c) => c.config), ...extraChains],
    async stop() {
      await h.stop();
      await s.stop();
    },
  };
}

/**
 * Stakes `sun` of the wallet's master TRX for energy (Stake 2.0 freezebalancev2), signed with
 * the service's own key of the master (the signer lends it for one signature).
 */
export async function stakeForEnergy(w: SweepWorld, wallet: TronWallet, sun: number): Promise<void> {
  const tw = tronWeb(w.s);
  const tx = await tw.transactionBuilder.freezeBalanceV2(sun, 'ENERGY', wallet.address);
  const { r, s, recovery } = await w.h.services.signer.withKey(wallet.id, 0, wallet.address, (key) => key.signDigest(hexToBytes(tx.txID)));
  const signature = r.toString(16).padStart(64, '0') + s.toString(16).padStart(64, '0') + (27 + recovery).toString(16);
  const sent = await tw.trx.sendRawTransaction({ ...tx, signature: [signature] });
  if (!sent.result) throw new Error(`freezebalancev2 refused: ${JSON.stringify(sent)}`);
  await w.s.control.produceBlocks(1);
}

/** A new child address of the wallet (auto-sweep on, as by default). */
export async function newChild(w: SweepWorld, wallet: TronWallet): Promise<{ id: string; address: string }> {
  const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data as { id: string; address: string };
}

/** An outside payer sends USDT to the child; the deposit indexer confirms it. Returns the deposit's transaction id. */
export async function deposit(w: SweepWorld, wallet: TronWallet, child: string, amount: bigint, stepIndexer = true): Promise<string> {
  const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(wallet.slug, 'testnet')!);
  // Catch up with the blocks produced since the last deposit first (on a loaded machine a
  // backlog of them took longer than the wait below), so that the wait is for this one.
  if (stepIndexer) while ((await indexer.step()) === 'progress');
  const sent = await sendToken(w.s, w.payer, w.usdt, child, amount);
  if (!sent.result) throw new Error(JSON.stringify(sent));
  const rows = await eventually(
    async () => {
      if (stepIndexer) await indexer.step();
      const { rows } = await sql<{ id: string; status: string }>`
        SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${sent.txid as string}`.execute(w.h.database.db);
      return rows;
    },
    (r) => r[0]?.status === 'SUCCESS',
    // Each step screens the senders first (AML); at load 15-20 one step has taken over 10 s.
    90_000,
  );
  return rows[0]!.id;
}

/** The deposit once its sweep ended (assetSwept, or the sweep failed), through the API. */
export async function swept(w: SweepWorld, wallet: TronWallet, depositId: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  return eventually(
    async () => (await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${depositId}`, { key: wallet.apiKey })).body.data,
    (t) => t.assetSwept === true || (t.assetSweptResponse && 'error' in t.assetSweptResponse),
    timeoutMs,
  );
}

/** The sweep's outbound rows, oldest first. */
export async function sweepRows(w: SweepWorld, depositId: string) {
  const { rows } = await sql<{
    stage: string;
    purpose: string;
    hash: string | null;
    from_address: string;
    to_address: string;
    value: string;
  }>`
    SELECT o.stage, o.purpose, o.hash, o.from_address, o.to_address, o.value::text AS value FROM outbound_txs o
      JOIN transactions t ON t.sweep_id = o.owner_id
     WHERE t.id = ${depositId} ORDER BY o.created_at, o.id`.execute(w.h.database.db);
  return rows;
}

/** What the stand-in says a transaction cost (fee, sun), its energy and its result. */
export async function feeOf(w: SweepWorld, txid: string) {
  const info = await post(w.s, 'wallet/gettransactioninfobyid', { value: txid });
  return {
    fee: BigInt(info.fee ?? 0),
    energy: BigInt(info.receipt?.energy_usage_total ?? 0),
    energyFee: BigInt(info.receipt?.energy_fee ?? 0),
    result: (info.receipt?.result as string | undefined) ?? null,
  };
}

export const hex = (address: string) => tronHex(address)!;
